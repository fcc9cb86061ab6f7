// One process's share of the program activity graph (pag.hpp) when the analysis is spread over
// processes: no graph, but per event of its ranks the CPM's tail (longest path to the end) and
// earliest time, from a backward and a forward pass that cross processes as the clock replay does
// (clock_plan.hpp: the dependencies, clock_post.hpp: the transport), and what the walks of the
// critical and near-critical paths read at each vertex. Internal to the analysis layer.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/clock_plan.hpp"
#include "wisp/analysis/activity_graph.hpp"
#include "wisp/analysis/cpm.hpp"
#include "wisp/analysis/near_critical.hpp"
#include "wisp/analysis/step_runner.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::clock {

struct Value {
  Ticks a = 0, b = 0, c = 0, d = 0;
};

// An explicit activity leaving an event of a local rank (a plan publication), as the backward pass
// found it at its target.
struct Out {
  Ticks earliest = 0;         // its source event's earliest time
  Ticks through = 0;          // the target's tail plus the activity's duration
  Ticks duration = 0;         // 0 into a hub
  EventIndex target = kNone;  // the event it goes to on the other rank (kNone: a hub)
  std::uint32_t seq = 0;      // its order among the target rank's dependencies (Dep::seq)
  CallpathId callpath = kNone;
};

// A collective member as the walks read it at its instance's hub (the instance's host has all).
struct MemberFact {
  std::uint32_t instance = 0, member = 0;
  Rank rank = kNone;
  EventIndex begin = kNone, end = kNone;
  Ticks begin_earliest = 0, begin_tail = 0;
  Ticks end_through = 0;  // tail of the end + the hub -> end activity's duration
  Ticks end_duration = 0;
  CallpathId end_callpath = kNone;
  std::uint8_t feeds = 0, waits = 0;
};

// Which activity leaves a vertex of the critical path: at an event its chain or a publication
// (its index in ClockPlan::pubs); at a hub the one to a member's end (the member) or to the next
// prefix hub.
inline constexpr std::uint32_t kChainOut = 0xfffffffd;  // (kNone: no activity)
inline constexpr std::uint32_t kHubChainOut = 0xfffffffe;

struct HubFacts {
  bool prefix = false;
  std::vector<MemberFact> members;  // by member number
  // Not prefix: one hub. Prefix: a hub per member (its earliest, its tail).
  std::vector<Ticks> earliest, tail;
  std::vector<std::uint32_t> critical_out;  // per hub: kNone if not on the critical path
};

struct PagShare {
  ClockPlan plan;
  std::vector<RankShare> shares;
  double ticks_per_second = 1e9;
  Ticks origin = 0;                       // the trace's first time stamp
  Ticks length = 0;                       // d_cp
  std::vector<Ticks> launch, first_tail;  // per rank (every one): its launch, the tail of its event 0
  std::vector<std::uint8_t> has_events;   // per rank: it has a vertex (and a launch)
  // Per local vertex (the chains' numbering): its tail, kept only where a chain starts or ends or
  // an explicit activity meets it (cpm.hpp, ChainTails: inside a chain it is the next kept one's
  // plus the chains between), and whether it has zero total slack (earliest + tail = d_cp).
  ChainTails tails;
  std::vector<bool> zero;
  std::vector<std::vector<Out>> outs;                // per local rank, by plan.pubs
  std::vector<std::vector<std::uint8_t>> tight;      // per local rank, by plan.deps: on a longest path to its target
  std::unordered_map<std::uint32_t, HubFacts> hubs;  // the instances this process hosts (hub_host())
  // The chains of the local ranks' events (vertex first_vertex[r] + i: event i of rank r), as the
  // PAG keeps them: duration, call path and kind in 7 bytes per event, read by every pass.
  ActivityGraph chains;
  std::vector<std::uint32_t> first_vertex;  // per rank (local ones)
  // The critical path (mark_critical_path()): per local rank its events on it, ascending, with the
  // activity that leaves each; the rank its launch goes to.
  std::vector<std::vector<std::pair<EventIndex, std::uint32_t>>> critical;
  Rank critical_launch = kNone;
  bool point_to_point = true;  // no tight dependency: values cross point to point (else in rounds)

  int owner(Rank r) const { return owner_of(shares, r); }
  std::uint32_t vertex(Rank r, EventIndex k) const { return first_vertex[r] + k; }
  Ticks tail(Rank r, EventIndex k) const { return tails.tail_at(chains, vertex(r, k)); }
  bool kept(Rank r, EventIndex k) const { return tails.kept(vertex(r, k)); }
  // The process the walks go to at an instance's hubs (one of those with members, by instance).
  int hub_host(const Trace& trace, std::uint32_t instance) const;
  bool zero_slack(Ticks earliest_at, Ticks tail_at) const { return earliest_at + tail_at == length; }
};

// Durations of a local rank's activities as the PAG gives them (pag.cpp): the chain v -> v + 1
// (computation, or MPI time after the call's release) and a dependency into a call.
class RankDurations {
 public:
  RankDurations(const Trace& trace, const PagShare& s, Rank r)
      : trace_(trace), plan_(s.plan), chains_(s.chains), first_(s.first_vertex[r]), r_(r) {}
  bool has_chain(EventIndex i) const { return chains_.has_chain(first_ + i); }  // i -> i + 1
  Ticks chain(EventIndex i) const { return chains_.chain_duration_of(first_ + i); }
  CallpathId chain_callpath(EventIndex i) const { return chains_.chain_callpath_of(first_ + i); }
  Ticks dependency(const Dep& d) const;
  CallpathId dependency_callpath(const Dep& d) const;
  // The outermost call holding i (enter <= i <= leave), or nullptr.
  const PagCall* call_at(EventIndex i) const;

 private:
  Ticks at(EventIndex i) const { return ticks_at(trace_, r_, i); }
  const Trace& trace_;
  const ClockPlan& plan_;
  const ActivityGraph& chains_;
  std::uint32_t first_;
  Rank r_;
  mutable std::size_t hint_ = 0;  // the call found last: the passes ask for events in order
};

// Each local rank's durations, made when first asked for and kept (with their search hint: a walk
// or pass resumes a rank where it stopped).
class DurationsByRank {
 public:
  DurationsByRank(const Trace& trace, const PagShare& s) : trace_(trace), s_(s), by_rank_(trace.rank_count()) {}
  const RankDurations& operator()(Rank r) const {
    if (!by_rank_[r]) by_rank_[r].emplace(trace_, s_, r);
    return *by_rank_[r];
  }

 private:
  const Trace& trace_;
  const PagShare& s_;
  mutable std::vector<std::optional<RankDurations>> by_rank_;
};

// Collective over `group`: the plan (the PAG's first variant under `rule`), the two passes and the
// hubs' facts. nullopt on every process if the dependencies form a cycle.
std::optional<PagShare> share_pag(const Trace& trace, ProcessGroup& group, RendezvousRule rule,
                                  std::uint64_t eager_limit, StepRunner& run);

// Collective: MBM_all of each call path (mbm_all() of the whole graph), from passes of four.
std::vector<Ticks> share_mbm_all(const Trace& trace, ProcessGroup& group, PagShare& s,
                                 const std::vector<CallpathId>& callpaths);
// Collective: the critical path critical_path() finds in the whole graph, marked in `s`.
void mark_critical_path(const Trace& trace, ProcessGroup& group, PagShare& s);
// Collective: near_critical_paths() of the whole graph, on every process (successor table empty;
// each path's `deviation` numbers a step of the search, not a graph activity).
NearCriticalPaths share_near_critical_paths(const Trace& trace, ProcessGroup& group, const PagShare& s,
                                            const NearCriticalQuery& query);

}  // namespace wisp::clock
