// Collective operations in the replay: wisp's algorithms (collective_schedule.cpp) with their
// messages moved through SimGrid by the rank actor, and the analytic algorithm that follows the
// generators' model rules.
#include <fmt/format.h>

#include "collective_schedule.hpp"
#include "rank_actor.hpp"

namespace wisp::replay_impl {

namespace {

// The rank actor as the schedules' messenger: collective channels per (comm, source, destination).
class ActorMessenger final : public CollectiveMessenger {
 public:
  ActorMessenger(RankActor& self, CommId comm)
      : self_(self), w_(self.world()), comm_(w_.trace.defs.comms[comm]), id_(comm) {}

  void post_send(std::uint32_t to, std::uint64_t bytes) override {
    const std::uint32_t ch = w_.collective_channel(id_, self_.rank(), comm_.members[to]);
    RankActor::Transfer t = self_.send(ch, bytes <= w_.eager_threshold_between(self_.rank(), comm_.members[to]),
                                       w_.options.zero_communication ? 0 : bytes);
    if (t.comm) batch_.push_back(std::move(t));
  }
  void post_receive(std::uint32_t from, std::uint64_t bytes) override {
    const std::uint32_t ch = w_.collective_channel(id_, comm_.members[from], self_.rank());
    batch_.push_back(self_.receive(ch, bytes <= w_.eager_threshold_between(comm_.members[from], self_.rank())));
  }
  void wait() override {
    for (RankActor::Transfer& t : batch_) self_.wait(t);
    batch_.clear();
  }
  // A receive waited for at once costs one simcall instead of two; posting it after the sends
  // changes nothing, as no simulated time passes in between.
  void receive(std::uint32_t from, std::uint64_t bytes) override {
    const std::uint32_t ch = w_.collective_channel(id_, comm_.members[from], self_.rank());
    self_.receive_now(ch, bytes <= w_.eager_threshold_between(comm_.members[from], self_.rank()));
    wait();
  }

 private:
  RankActor& self_;
  World& w_;
  const Communicator& comm_;
  CommId id_;
  std::vector<RankActor::Transfer> batch_;
};

// The model's rules (include/wisp/generate/model.hpp): wait as the operation's class says, then
// ceil(log2 n) transfers of b bytes, each taking L + b/B on a contention-free network.
void run_analytic(RankActor& self, const CollectiveCall& call, const CollectiveShape& shape) {
  World& w = self.world();
  const Communicator& comm = w.trace.defs.comms[call.comm];
  const std::uint32_t n = shape.size, local = shape.me;
  self.catch_up();  // it arrives now
  SyncPoint& s = w.sync(call.key, n, shape.has_root ? shape.root : kNone);
  arrive(w, s, local);
  const Rank me = self.rank();
  switch (classify(call.op)) {
    case CollectiveClass::OneToN:
      if (!shape.has_root || local != shape.root) wait_for_root(w, s, me);
      break;
    case CollectiveClass::NToOne:
      if (shape.has_root && local == shape.root) wait_for_all(w, s, me);
      break;
    case CollectiveClass::Prefix:
      wait_for_prefix(w, s, local, me);
      break;
    default:
      wait_for_all(w, s, me);
      break;
  }
  leave(w, call.key);
  const std::uint64_t bytes = w.options.zero_communication ? 0 : shape.buffer;
  for (std::uint32_t k = 0, rounds = ceil_log2(n); k < rounds; ++k) {
    const std::uint32_t partner = (local + (1u << k)) % n;
    ++w.stats.messages;
    sg::Host* to = w.host_of_rank[comm.members[partner]];
    if (to != self.host()) w.stats.bytes_between_hosts += bytes;
    self.transfer(to, bytes);
  }
}

}  // namespace

void run_collective(RankActor& self, const CollectiveCall& call) {
  World& w = self.world();
  const auto& local = w.local_rank_of(call.comm);
  const CollectiveAlgorithm a = w.options.algorithms.of(call.op);
  if (a != CollectiveAlgorithm::Analytic) {
    ActorMessenger messenger(self, call.comm);
    return send_collective_messages(w.trace, call, local, self.rank(), a, messenger);
  }
  const CollectiveShape shape = collective_shape(w.trace, call, local, self.rank());
  if (shape.size > 1 && shape.me != kNone) run_analytic(self, call, shape);
}

}  // namespace wisp::replay_impl
