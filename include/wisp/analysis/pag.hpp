// The program activity graph (paper 001 §2.1, §4.3) of a trace, built in linear time. Vertices are
// the events of every rank (plus one virtual start and one synchronisation vertex per collective
// instance); activities are the local computation and MPI time between consecutive events of a
// rank, labelled with their call path, with wait time excluded, and the cross-rank dependencies:
// messages (send start, the Enter of the send call -> receive completion), rendezvous (receive
// posted -> send completion) and collectives (every member's begin -> synchronisation vertex ->
// each member's end).
//
// Wait time: an MPI call [enter, leave] is released at R = max(enter, the start times of every
// remote dependency of its events). Its local activities keep only their time after R and every
// remote dependency into it lasts (target time - R), so the last dependency to arrive is exactly
// tight and the graph's longest path through each event ends at the event's time (src/analysis/README.md,
// "Program activity graph (PAG)").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "wisp/analysis/activity_graph.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// When does a send depend on its receive having been posted?
enum class RendezvousRule : std::uint8_t {
  Observed,    // the receive was posted after the send started and before it completed (Late Receiver)
  EagerLimit,  // the message is larger than the eager limit (and the receive was posted before the
               // send completed): the protocol rule the ideal-network replay uses
};

struct PagOptions {
  RendezvousRule rendezvous = RendezvousRule::Observed;
  std::uint64_t eager_limit = 65536;  // bytes (EagerLimit rule only)
  // Also the ideal network's dependencies (EagerLimit rule with this limit) as the graph's second
  // variant, for POP's clock replay on the same graph (ideal_network.hpp).
  std::optional<std::uint64_t> ideal_eager_limit;
  // Keep Pag::time once the graph is built (path_segments() needs it); without it the PAG is
  // 8 bytes per event smaller, which is what `wisp analyze` chooses.
  bool vertex_times = true;
};
// The EagerLimit rule with this limit, every other option as its default.
inline PagOptions eager_limit_options(std::uint64_t eager_limit) {
  PagOptions o;
  o.rendezvous = RendezvousRule::EagerLimit;
  o.eager_limit = eager_limit;
  return o;
}

// An outermost MPI call of a rank and its release time R on the ideal network (end of its wait;
// R = enter if none), what POP's timers need: under the ideal variant's dependencies if the graph
// has one, else under the graph's own. (The graph's own R shapes its activities' durations and is
// not kept: 8 bytes per call.)
struct PagCall {
  EventIndex enter = kNone;
  EventIndex leave = kNone;
  Ticks ideal_release = 0;
};

struct PagAnomalies {
  std::uint64_t receive_before_send = 0;       // message dependencies dropped: receive ends before the send starts
  std::uint64_t inconsistent_collectives = 0;  // a member left before the instance could complete: all local
  std::uint64_t cycle_activities = 0;          // removed to break cycles between equal timestamps
};

// A trace spread over processes: a vertex that stands for the other process's end of an explicit
// activity that crosses (a ghost). The activity itself, with its duration and call path, is the
// one into its target (an import ghost's, on the target's process); on the source's process an
// activity of zero duration leads to an export ghost. The two ghosts of a crossing know each other.
struct PagGhost {
  std::uint32_t vertex = 0;
  int process = 0;             // the other end's
  Rank lane = kNone;           // the other end's rank (kNone: a synchronisation vertex)
  std::uint32_t peer = kNone;  // the other end: its index in that process's Pag::ghosts
  bool import = false;         // the activity comes from there (a root here), else goes there (a leaf here)
};

// How values cross the ghosts in a sweep of a graph spread over processes: point to point (a
// process sends what it has when it can go no further, and waits for the next message; safe only
// where no dependency is tight, Pag::tight, on any process: no cycle can be) or in rounds of
// exchange() (a round in which nothing crosses while vertices wait is a cycle). Automatic: point to
// point unless a dependency is tight.
enum class GhostTransport : std::uint8_t { Automatic, PointToPoint, Rounds };
// Point to point, a process sends at about this many bytes even if it could go on, so that it never
// holds a whole sweep's values at once.
inline constexpr std::size_t kGhostRoundBytes = std::size_t{8} << 20;

struct Pag {
  static constexpr std::uint32_t kStart = 0;  // the virtual start vertex (time = origin; spread: process 0's)

  ActivityGraph graph;
  std::vector<Ticks> time;                  // per vertex: ticks since the trace's time 0 (empty without
                                            // PagOptions::vertex_times)
  std::vector<std::uint32_t> first_vertex;  // per rank: the vertex of its event 0
  std::vector<std::vector<PagCall>> calls;  // per rank: outermost MPI calls in event order
  double ticks_per_second = 1e9;
  Ticks origin = 0;  // time of the trace's first event
  PagAnomalies anomalies;
  // The graph variant holding the ideal network's dependencies: kSecondVariant when built with
  // PagOptions::ideal_eager_limit (0 if index_graph() had to drop it), kFirstVariant when the PAG's
  // own rule is EagerLimit, 0 otherwise.
  Variant ideal_variant = 0;
  std::uint64_t ideal_eager_limit = 0;
  // Spread over processes: the graph of this process's ranks (first_vertex[r] is kNone for the
  // others') and the instances it hosts, glued to the other processes' graphs at the ghosts, by
  // vertex; empty for a whole trace. The anomalies are this process's part.
  std::vector<PagGhost> ghosts;
  bool spread = false;  // this is one process's part (build_pag(trace, options, group) of a spread trace)
  // Dependencies into a call whose start has the time stamp of their end: only they can close a
  // cycle, which a graph spread over processes cannot break (its sweeps find it).
  std::uint64_t tight = 0;

  std::uint32_t vertex(Rank r, EventIndex e) const { return first_vertex[r] + e; }
  // Spread: the ghost at vertex v, nullptr if v is none (ghosts are listed in vertex order).
  const PagGhost* ghost_at(std::uint32_t v) const;
  // Spread: the ghost a value or a walk crossing from another process arrives at, by its index
  // here (PagGhost::peer there): an import ghost if `import`, else an export ghost; throws if none.
  std::uint32_t arrival(std::uint32_t ghost, bool import) const;
  double seconds(Ticks t) const { return static_cast<double>(t) / ticks_per_second; }
  std::uint64_t memory_bytes() const;
};

Pag build_pag(const Trace& trace, const PagOptions& options = {});
// Collective over `group` for a trace spread over it (Trace::share), else build_pag(trace, options):
// this process's part of the graph of the whole trace, with ghosts where it crosses to another
// process. Glued at the ghosts, the parts are the whole trace's graph, activity for activity.
Pag build_pag(const Trace& trace, const PagOptions& options, ProcessGroup& group);
// Collective over `group` for a spread PAG (Pag::spread): the anomalies of every part, summed (the
// whole graph's, but cycle_activities: a part breaks its own cycles only); else pag.anomalies.
PagAnomalies anomalies_over(const Pag& pag, ProcessGroup& group);

}  // namespace wisp
