// What each rank of a process needs for the ideal-network clock replay spread over processes
// (the activity graph spread over processes, pag_share.hpp), decided once before it: the dependencies into the rank's
// events, the clocks that leave them and the process each goes to, its outermost MPI calls with their ideal release —
// the PAG's ideal variant (pag.cpp), from facts that cross once: each message side's times, a summary of each process's
// members of a collective instance. Internal to the analysis layer.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "wisp/analysis/pag.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::clock {

constexpr Ticks kMissing = std::numeric_limits<Ticks>::min();

// The clocks that cross ranks, by key: a send's start (to its receive's completion), a receive's
// posting (to a rendezvous send's completion), a process's feeding members of a collective
// instance (their largest clock at the begin) and, for prefix operations, one member's clock.
enum Key : std::uint8_t { kStart, kPost, kPartial, kMember };
inline std::uint64_t key_of(Key k, std::uint64_t a, std::uint64_t b = 0) {
  return (std::uint64_t{k} << 62) | (a << 30) | b;
}

// An instance with members here: where the clocks of its hub come from and go to.
struct Instance {
  bool prefix = false;
  std::vector<int> feeders;       // not prefix: the processes whose partial the hub takes
  std::vector<int> partial_to;    // not prefix: where this process's partial goes
  std::vector<int> member_owner;  // prefix: each member's process
  std::uint32_t count = 0;
  std::uint32_t local_feeders = 0;  // feeding members here not at their begin yet
  std::uint32_t consumers = 0;      // waiting members here that have not taken the hub's clock yet
  Ticks partial = kMissing;

  // Prefix: the processes with members from j on (they wait for member j's begin) / up to j
  // (member j's end waits for them, walking back).
  std::vector<int> owners_from(std::uint32_t j) const { return unique_owners(j, count); }
  std::vector<int> owners_upto(std::uint32_t j) const { return unique_owners(0, j + 1); }

 private:
  std::vector<int> unique_owners(std::uint32_t first, std::uint32_t end) const;
};

enum class DepKind : std::uint8_t { Start, Post, Hub };
struct Dep {  // a dependency into event `target` of a rank
  EventIndex target;
  DepKind kind;
  std::uint32_t a, b;  // Start/Post: the message and the event it leaves on the other rank;
                       // Hub: the instance and the member
  std::uint32_t seq;   // the order the PAG adds the rank's dependencies in (1, 2, ...; its launch: 0)
};
struct Publication {  // a clock that leaves at event `event`
  EventIndex event;
  Key key;
  int to;  // the process it goes to (kPartial, kMember: the instance's own lists)
  std::uint32_t a, b;
};

// Event i of rank r in clock ticks, as the PAG converts it (pag.cpp).
inline Ticks ticks_at(const Trace& trace, Rank r, EventIndex i) {
  return std::llround(trace.ranks[r].events[i].time * static_cast<double>(trace.defs.clock.ticks_per_second));
}

// A rank's outermost MPI calls (those not inside another), in order: the PAG's calls.
inline std::vector<CallSpan> outermost_calls(const RankTrace& rt) {
  std::vector<CallSpan> outer;
  for (const CallSpan& c : rt.mpi_calls)
    if (outer.empty() || c.enter > outer.back().leave) outer.push_back(c);
  return outer;
}

struct ClockPlan {
  std::vector<std::vector<Dep>> deps;                     // per local rank, by target event
  std::vector<std::vector<Publication>> pubs;             // per local rank, by event
  std::vector<std::vector<PagCall>> calls;                // per rank (local ones): outermost calls, ideal release
  std::vector<std::vector<std::uint8_t>> replaced;        // per local rank, per collective record: its
                                                          // begin -> end chain belongs to the hub
  std::unordered_map<std::uint32_t, Instance> instances;  // those with members here
  std::uint64_t tight = 0;  // dependencies whose two ends have the same time stamp (a cycle needs them)
  // The PAG's anomalies among this process's dependencies (pag.hpp, PagAnomalies; an instance is
  // counted by the process of its first member).
  std::uint64_t receive_before_send = 0;
  std::uint64_t inconsistent_collectives = 0;
};

// Collective over `group`, for a trace read spread over it (`shares`: every process's ranks): the
// PAG's dependencies under `rule` (its first variant; POP's ideal network: EagerLimit).
ClockPlan plan_clocks(const Trace& trace, RendezvousRule rule, std::uint64_t eager_limit, ProcessGroup& group,
                      const std::vector<RankShare>& shares);

}  // namespace wisp::clock
