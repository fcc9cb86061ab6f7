// Wait states (Scalasca's definitions, paper 004 §III): Late Sender, Late Receiver, Wait at N×N,
// Wait at Barrier, Late Broadcast, Early Reduce, Early Scan and Wait at MPI_Finalize, found by
// comparing the Enter/Leave times of the MPI calls on both sides of every message and collective
// instance. Each instance names the rank it waits for (the delayer) and both synchronisation
// events, which the critical-path and delay analyses follow.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "wisp/analysis/call_index.hpp"
#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

enum class WaitKind : std::uint8_t {
  LateSender,     // receive (MPI_Recv, or the Wait* completing an Irecv) entered before the send
  LateReceiver,   // blocking send / MPI_Wait* on an Isend left after the receive was posted late
  WaitNxN,        // N×N collective (Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter, ...)
  WaitBarrier,    // MPI_Barrier
  LateBroadcast,  // 1→N collective (Bcast, Scatter(v)) entered before its root
  EarlyReduce,    // N→1 collective (Reduce, Gather(v)): the root entered before the last sender
  EarlyScan,      // Scan/Exscan entered before a lower rank
  FinalizeWait,   // MPI_Finalize entered before the last rank
};
inline constexpr int kWaitKindCount = 8;

// The kind's metrics in the catalogue (metric_catalogue.hpp).
std::string_view metric_name(WaitKind k);        // "mpi_latesender", ...
std::string_view count_metric_name(WaitKind k);  // "mpi_cls_count", "mpi_clr_count", "<metric>_count"
// Kinds the critical path and the delay analysis follow to their delayer (Scalasca does not
// follow Early Scan nor Wait at Finalize: the path starts at MPI_Finalize).
bool is_attributable(WaitKind k);

struct WaitState {
  double seconds = 0;
  Rank rank = kNone;                 // the waiting rank
  EventIndex event = kNone;          // its synchronisation event: receive completion (LS), send
                                     // completion (LR), MpiCollectiveEnd, Leave of MPI_Finalize
  Rank delayer = kNone;              // the rank it waits for
  EventIndex delayer_event = kNone;  // the delayer's synchronisation event: send (LS), receive
                                     // request (LR), MpiCollectiveEnd, Leave of MPI_Finalize
  CallpathId callpath = kNone;       // call path of the waiting MPI call
  std::uint32_t source = kNone;      // Trace::messages index (LS, LR) or Trace::collectives index
  WaitKind kind = WaitKind::LateSender;
  double waiter_leave = 0;   // LS, LR: Leave of the MPI call on each side (the synchronisation
  double delayer_leave = 0;  //   graph's completion times read them, on either side's process)
};

// A wait state's name on every process of a spread analysis: (kind, message or collective
// instance, waiting rank) is unique.
struct WaitKey {
  std::uint32_t kind = 0, source = 0, rank = 0;
  auto operator<=>(const WaitKey&) const = default;
};
inline WaitKey wait_key(const WaitState& w) { return WaitKey{static_cast<std::uint32_t>(w.kind), w.source, w.rank}; }

// How one collective instance synchronises its members.
struct CollectiveSync {
  std::uint32_t first_wait = 0;  // its wait states: instances[first_wait, first_wait + wait_count)
  std::uint32_t wait_count = 0;
  Rank delayer = kNone;     // global rank every wait of the instance waits for
  double sync_begin = 0;    // begin time the waits wait for (latest begin, or the root's)
  double earliest_end = 0;  // earliest end among the synchronising members
  bool group = false;       // every member synchronises with every other one
  bool analyzed = false;    // false: incomplete, single-member, or inside MPI_Init/Finalize
};

// MPI_Init or MPI_Finalize across all ranks that called it.
struct InitFinalizeSync {
  double latest_enter = 0;
  double earliest_leave = 0;
  Rank latest = kNone;  // rank that entered last (lowest rank among equals)
  bool present = false;
};

// Late Sender, wrong order (MPI.pattern): the waiting time of Late Senders whose message was sent
// after one the rank received later, from a different source or the same; and their instances, of
// messages with data (mpi_clswo_count) and of empty ones (mpi_slswo_count), per (call path, rank).
struct WrongOrder {
  CallpathMatrix different, same, communications, synchronizations;
};

struct WaitStates {
  std::vector<WaitState> instances;
  std::vector<std::vector<std::uint32_t>> p2p_wait;         // [rank][p2p record] -> instance or kNone
  std::vector<std::vector<std::uint32_t>> collective_wait;  // [rank][collective record] -> waiting instance
  std::vector<CollectiveSync> collectives;                  // per Trace::collectives entry
  InitFinalizeSync init, finalize;
  std::array<CallpathMatrix, kWaitKindCount> seconds;  // per kind: waiting time per (call path, rank)
  std::array<CallpathMatrix, kWaitKindCount> counts;   // per kind: instances per (call path, rank)
  // Scalasca's completion times (MPI.pattern): a member's time in the operation after the first one
  // left it (not before the last one entered), per (call path, rank), in MPI barriers, N×N
  // collectives and MPI_Init.
  CallpathMatrix barrier_completion, nxn_completion, init_completion;
  WrongOrder wrong_order;
  // Late Sender / Late Receiver instances of empty messages (Scalasca's mpi_sls_count, mpi_slr_count:
  // synchronisations); counts[] holds those of messages with data.
  CallpathMatrix late_sender_syncs, late_receiver_syncs;
};

// One search, whatever group it runs in (as Scalasca's replay): each process searches its own
// ranks (Trace::share; all of them in a group of one) and only the facts another process reads
// cross to it. Its instances are those whose waiting side or delayer is one of its ranks (all of a
// collective instance's when one of its members is), in the order a group of one finds them in
// the whole trace; the sums are its ranks' (the others' zero).
WaitStates find_wait_states(const Trace& trace, const CallIndex& calls, ProcessGroup& group);
WaitStates find_wait_states(const Trace& trace, const CallIndex& calls);  // in a group of one

// Frees the per-instance tables (instances, p2p_wait, collective_wait, collectives: what the
// timelines read) and keeps the sums per (call path, rank) and init/finalize: all the reports
// read once the timelines are made (wisp run, for the run's peak memory).
void drop_instances(WaitStates& waits);

// L1 distance of two traces' waiting time of one kind over (call path, rank), relative to the
// reference's total (1 if only `other` waits): how far a replay's wait states are from the measured
// ones. Both traces must share their call paths and ranks (a replay keeps them).
double wait_state_error(const WaitStates& reference, const WaitStates& other, WaitKind kind);

}  // namespace wisp
