// Synchronisation points and the time spent per call path between them: the structure Scalasca's
// critical-path and delay analyses replay backwards (paper 000 §III-B, 004 §IV-B).
//
// A synchronisation point is an event at which a rank synchronised with other ranks: both sides of
// every attributable wait state, every member of a synchronising collective (barrier, N×N with
// full overlap), MPI_Init and MPI_Finalize. Per rank, the time per call path between consecutive
// synchronisation points is kept as a short list (the "time map"), so that the time between any
// two of them is a sum over a contiguous range.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/call_index.hpp"
#include "wisp/analysis/wait_states.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct SyncPoint {
  EventIndex event = kNone;         // the synchronisation event
  EventIndex stamp = kNone;         // last Enter/Leave/ProgramBegin/End before it (kNone: none)
  std::uint32_t tmap_end = 0;       // the interval ending here: time entries [previous end, tmap_end)
  std::uint32_t callpath_slot = 0;  // slot of the MPI call it happens in
  double wait = 0;                  // waiting time at this point (the waiting side of a wait state)
  double prune = 0;                 // part of the call before the synchronisation ended:
                                    // call duration - completion time (Scalasca's pruning)
  double prune_scalasca = 0;        // the same as Scalasca 2.6 computes it: equal, except that
                                    // a Late Receiver's waiting send has completion time
                                    // min(0, leave(send) - leave(receive request))
  std::uint32_t waiter_of = kNone;  // wait state this point is the waiting side of
  std::uint32_t delayer_first = 0;  // wait states this point is the delayer of:
  std::uint32_t delayer_count = 0;  //   WaitStates::instances[first, first + count)
  bool init = false;                // the Leave of MPI_Init
  bool finalize = false;            // the Leave of MPI_Finalize
};

struct TimeEntry {
  double seconds = 0;
  std::uint32_t slot = 0;  // call path slot (0: program root)
};

// A collective's latest member (its delayer) looking back for its previous synchronisation with the
// whole group, as Scalasca's findPreviousMpiGroupSynchpoints does: walking back over its points,
// `group_prev` is the one at which the last member not yet met is met (kNone: none), and the
// members met later, in between, were met at the `key_count` distinct points keys[key_first...]
// (ascending; between group_prev and the collective).
struct GroupSync {
  std::uint32_t point = 0;  // the collective's point on the delayer
  std::uint32_t group_prev = kNone;
  std::uint32_t key_first = 0, key_count = 0;
};

struct RankSyncs {
  std::vector<SyncPoint> points;   // in event order
  std::vector<TimeEntry> entries;  // time maps of the intervals, interval by interval; the
                                   // entries after the last point run to the rank's end
  std::vector<GroupSync> groups;   // per collective point this rank is the delayer of, by point
  std::vector<std::uint32_t> group_keys;
  const GroupSync* group_at(std::uint32_t point) const;  // null if none
};

// Per attributable wait state: its synchronisation points on both sides and, on each side, the
// previous synchronisation point with the other rank (kNone: none, the interval starts at the
// rank's first event).
struct WaitLink {
  std::uint32_t waiter_sync = kNone;
  std::uint32_t waiter_prev = kNone;
  std::uint32_t delayer_sync = kNone;
  std::uint32_t delayer_prev = kNone;
};

struct SyncGraph {
  std::vector<RankSyncs> ranks;
  std::vector<WaitLink> links;  // per WaitStates::instances entry (kNone fields if not attributable)
  std::uint32_t slots = 0;      // call paths + 1
};

SyncGraph build_sync_graph(const Trace& trace, const CallIndex& calls, const WaitStates& waits);
// Spread over processes (find_wait_states with the group): the points of this process's ranks,
// and every link of a wait state with a side here whole (the other side's half crosses over).
SyncGraph build_sync_graph(const Trace& trace, const CallIndex& calls, const WaitStates& waits, ProcessGroup& group);

// Seconds per call-path slot, dense, remembering which slots were touched so that clearing and
// iterating cost only what was used.
struct SlotTimes {
  std::vector<double> value;
  std::vector<char> used;
  std::vector<std::uint32_t> touched;

  explicit SlotTimes(std::uint32_t slots = 0) : value(slots, 0.0), used(slots, 0) {}
  void add(std::uint32_t slot, double seconds) {
    if (!used[slot]) {
      used[slot] = 1;
      touched.push_back(slot);
    }
    value[slot] += seconds;
  }
  void clear() {
    for (std::uint32_t s : touched) {
      value[s] = 0.0;
      used[s] = 0;
    }
    touched.clear();
  }
};

// Adds the time of a rank's intervals (from, to] per slot: from/to are point indices, from ==
// kNone starts at the rank's first event, to == kNone runs to its end.
void add_interval_times(const RankSyncs& rs, std::uint32_t from, std::uint32_t to, SlotTimes& acc);

}  // namespace wisp
