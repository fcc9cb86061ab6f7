// The messages one member sends and receives in one collective operation under wisp's algorithms
// (binomial trees, recursive doubling, rings, dissemination, pairwise exchange, linear), issued to
// a CollectiveMessenger: the replay's rank actor moves them through SimGrid, the GOAL export
// writes them as operations, so both follow the same schedule.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::replay_impl {

// One collective operation of one rank. `key` is the sync key of the analytic algorithm (the
// collective instance for trace records); `instance` is kNone if synthesised (Finalize).
struct CollectiveCall {
  CollectiveOp op = CollectiveOp::Barrier;
  CommId comm = kNone;
  Rank root = kNone;
  std::uint64_t sent = 0, received = 0;
  std::uint64_t key = 0;
  std::uint32_t instance = kNone;
};

// The call of a collective record of the trace.
inline CollectiveCall collective_call(const CollectiveRecord& r) {
  return CollectiveCall{r.op, r.comm, r.root, r.sent, r.received, r.instance, r.instance};
}

// Global rank → local rank of communicator `comm` (kNone for non-members).
std::vector<std::uint32_t> local_ranks(const Trace& trace, CommId comm);

// Where a schedule's messages go; ranks are local to the communicator. `wait` waits for every
// transfer posted since the last wait; `receive` is a receive waited for at once.
class CollectiveMessenger {
 public:
  virtual void post_send(std::uint32_t to, std::uint64_t bytes) = 0;
  virtual void post_receive(std::uint32_t from, std::uint64_t bytes) = 0;
  virtual void wait() = 0;
  virtual void receive(std::uint32_t from, std::uint64_t bytes) {
    post_receive(from, bytes);
    wait();
  }

 protected:
  ~CollectiveMessenger() = default;
};

// A member's view of the operation: communicator size, its local rank (kNone if not a member),
// the root's local rank and the per-rank buffer b (Score-P's byte convention).
struct CollectiveShape {
  std::uint32_t size = 0;
  std::uint32_t me = kNone;
  std::uint32_t root = 0;
  bool has_root = false;
  std::uint64_t buffer = 0;
};
// `local` maps global ranks to local ranks of call.comm (kNone for non-members).
CollectiveShape collective_shape(const Trace& trace, const CollectiveCall& call,
                                 const std::vector<std::uint32_t>& local, Rank self);

// Issues rank `self`'s messages of `call` under algorithm `a` (not Analytic: the replay's own).
void send_collective_messages(const Trace& trace, const CollectiveCall& call, const std::vector<std::uint32_t>& local,
                              Rank self, CollectiveAlgorithm a, CollectiveMessenger& out);

}  // namespace wisp::replay_impl
