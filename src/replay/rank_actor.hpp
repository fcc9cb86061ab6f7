// The actor of one rank: walks the rank's events in order, executes the computation between MPI
// calls, replays each MPI call (overhead, messages, request completions, collectives) and stamps
// every event with the simulated time.
#pragma once

#include <vector>

#include "world.hpp"

namespace wisp::replay_impl {

class RankActor {
 public:
  RankActor(World& world, Rank rank);
  void run();

  // Messaging used by point-to-point calls and collective algorithms. An eager send is detached
  // (returns nullptr); otherwise the returned activity completes with the transfer.
  sg::CommPtr send(std::uint32_t channel, bool eager, std::uint64_t bytes);
  sg::CommPtr receive(std::uint32_t channel, bool eager);

  World& world() { return w_; }
  Rank rank() const { return rank_; }
  sg::Host* host() const { return w_.host_of_rank[rank_]; }

 private:
  struct OpenRequest {
    std::uint32_t record;  // p2p record of the Isend/Irecv
    sg::CommPtr comm;
  };

  void compute(double seconds);
  void spend(double seconds);
  bool starts_call(EventIndex i, EventIndex& last);
  EventIndex replay_call(EventIndex first, EventIndex last);
  void replay_local(EventIndex first, EventIndex last);
  void post_send(std::uint32_t record, bool blocking);
  void post_receive(std::uint32_t record, bool blocking);
  void complete(std::uint32_t record);
  void cancel(std::uint32_t record);
  void initialize();
  void finalize_without_record();
  void wait_pending();

  World& w_;
  Rank rank_;
  const RankTrace& rt_;
  std::vector<double>& times_;
  std::size_t next_call_ = 0;           // index into rt_.mpi_calls
  std::vector<OpenRequest> requests_;   // posted and not yet completed
  std::vector<sg::CommPtr> pending_;    // to wait for before the current call returns
  void* sink_ = nullptr;                // where received payloads land (ignored)
};

// Replays the collective operation of record `record` of `self` (collectives.cpp). `key` is the
// sync key of the analytic algorithm (the collective instance for trace records).
struct CollectiveCall {
  CollectiveOp op = CollectiveOp::Barrier;
  CommId comm = kNone;
  Rank root = kNone;
  std::uint64_t sent = 0, received = 0;
  std::uint64_t key = 0;
  std::uint32_t instance = kNone;  // trace instance (members' records), kNone if synthesised
};
void run_collective(RankActor& self, const CollectiveCall& call);

}  // namespace wisp::replay_impl
