// Collective operations decomposed into point-to-point messages (binomial trees, recursive
// doubling, rings, dissemination, pairwise exchange, linear), and the analytic algorithm that
// follows the generators' model rules. Message sizes are computed identically by sender and
// receiver (from the instance's member records for the v-variants), so both sides always agree
// on the eager/rendezvous protocol of every message.
#include <fmt/format.h>

#include "rank_actor.hpp"

namespace wisp::replay_impl {

namespace {

bool is_variable(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Gatherv:
    case CollectiveOp::Scatterv:
    case CollectiveOp::Allgatherv:
    case CollectiveOp::Alltoallv:
    case CollectiveOp::Alltoallw:
    case CollectiveOp::ReduceScatter:
      return true;
    default:
      return false;
  }
}

class Collective {
 public:
  Collective(RankActor& self, const CollectiveCall& call)
      : self_(self), w_(self.world()), call_(call), comm_(w_.trace.defs.comms[call.comm]), n_(comm_.size()) {
    const auto& local = w_.local_rank_of(call.comm);
    me_ = local[self.rank()];
    if (call.root != kNone && call.root < local.size() && local[call.root] != kNone) {
      root_ = local[call.root];
      has_root_ = true;
    }
    b_ = collective_buffer(call.op, call.sent, call.received, n_, self.rank() == call.root);
    variable_ = is_variable(call.op) && call.instance != kNone;
  }

  void run();

 private:
  // --- helpers --------------------------------------------------------------------------
  std::uint32_t rel(std::uint32_t local) const { return (local + n_ - root_) % n_; }
  std::uint32_t abs(std::uint32_t relative) const { return (relative + root_) % n_; }
  Rank global(std::uint32_t local) const { return comm_.members[local]; }

  const CollectiveRecord* record_of(std::uint32_t local) const {
    const CollectiveInstance& inst = w_.trace.collectives[call_.instance];
    if (!inst.complete) return nullptr;
    const CollectiveMember& m = w_.trace.collective_members[inst.first + local];
    return &w_.trace.ranks[m.rank].collectives[m.record];
  }
  // The per-rank buffer of member `local` (its contribution to gathers, its block of scatters).
  std::uint64_t block(std::uint32_t local) const {
    if (!variable_) return b_;
    const CollectiveRecord* r = record_of(local);
    if (!r) return b_;
    return collective_buffer(r->op, r->sent, r->received, n_, global(local) == r->root);
  }
  // Sum of the blocks of relative ranks [from, from + count) ∩ [0, n).
  std::uint64_t blocks(std::uint32_t from, std::uint32_t count) const {
    const std::uint32_t to = std::min(n_, from + count);
    if (!variable_) return b_ * (to > from ? to - from : 0);
    std::uint64_t sum = 0;
    for (std::uint32_t r = from; r < to; ++r) sum += block(abs(r));
    return sum;
  }
  // Bytes member i sends to member j in an all-to-all.
  std::uint64_t pair(std::uint32_t i, std::uint32_t) const {
    if (!variable_) return b_;
    const CollectiveRecord* r = record_of(i);
    return r ? r->sent / n_ : b_;
  }

  void post_send(std::uint32_t to, std::uint64_t bytes) {
    const std::uint32_t ch = w_.collective_channel(call_.comm, global(me_), global(to));
    RankActor::Transfer t = self_.send(ch, bytes <= w_.eager_threshold, w_.options.zero_communication ? 0 : bytes);
    if (t.comm) batch_.push_back(std::move(t));
  }
  void post_receive(std::uint32_t from, std::uint64_t bytes) {
    const std::uint32_t ch = w_.collective_channel(call_.comm, global(from), global(me_));
    batch_.push_back(self_.receive(ch, bytes <= w_.eager_threshold));
  }
  void wait() {
    for (RankActor::Transfer& t : batch_) self_.wait(t);
    batch_.clear();
  }
  void send(std::uint32_t to, std::uint64_t bytes) {
    post_send(to, bytes);
    wait();
  }
  // A receive waited for at once costs one simcall instead of two; posting it after the send
  // changes nothing, as no simulated time passes in between.
  void receive(std::uint32_t from, std::uint64_t bytes) {
    const std::uint32_t ch = w_.collective_channel(call_.comm, global(from), global(me_));
    self_.receive_now(ch, bytes <= w_.eager_threshold);
    wait();
  }
  void exchange(std::uint32_t to, std::uint64_t out, std::uint32_t from, std::uint64_t in) {
    post_send(to, out);
    receive(from, in);
  }

  // --- algorithms -----------------------------------------------------------------------
  void analytic();
  void barrier_dissemination();
  void bcast_binomial(std::uint64_t bytes);
  void bcast_linear(std::uint64_t bytes);
  void bcast_chain(std::uint64_t bytes);
  void reduce_binomial(std::uint64_t bytes);
  void reduce_linear(std::uint64_t bytes);
  void gather_binomial();
  void gather_linear();
  void scatter_binomial();
  void scatter_linear();
  void allreduce_recursive_doubling();
  void allreduce_ring();
  void allgather_ring();
  void allgather_recursive_doubling();
  void alltoall_pairwise();
  void alltoall_linear();
  void reduce_scatter_ring();
  void scan_linear();
  void scan_recursive_doubling();
  void with_root(std::uint32_t root) { root_ = root; }

  RankActor& self_;
  World& w_;
  const CollectiveCall& call_;
  const Communicator& comm_;
  std::uint32_t n_;
  std::uint32_t me_ = 0;
  std::uint32_t root_ = 0;
  bool has_root_ = false;
  std::uint64_t b_ = 0;
  bool variable_ = false;
  std::vector<RankActor::Transfer> batch_;
};

// One dispatch over (family, algorithm): a flat switch, a few lines over 50 on purpose.
void Collective::run() {
  if (n_ <= 1 || me_ == kNone) return;
  const CollectiveAlgorithm a = w_.options.algorithms.of(call_.op);
  if (a == CollectiveAlgorithm::Analytic) return analytic();
  using A = CollectiveAlgorithm;
  switch (family_of(call_.op)) {
    case CollectiveFamily::Barrier:
      if (a == A::Binomial) {
        with_root(0);
        reduce_binomial(0);
        bcast_binomial(0);
      } else {
        barrier_dissemination();
      }
      return;
    case CollectiveFamily::Bcast:
      if (a == A::Linear) return bcast_linear(b_);
      if (a == A::Ring) return bcast_chain(b_);
      return bcast_binomial(b_);
    case CollectiveFamily::Reduce:
      return a == A::Linear ? reduce_linear(b_) : reduce_binomial(b_);
    case CollectiveFamily::Gather:
      return a == A::Linear ? gather_linear() : gather_binomial();
    case CollectiveFamily::Scatter:
      return a == A::Linear ? scatter_linear() : scatter_binomial();
    case CollectiveFamily::Allreduce:
      if (a == A::Ring) return allreduce_ring();
      if (a == A::Binomial) {
        with_root(0);
        reduce_binomial(b_);
        return bcast_binomial(b_);
      }
      return allreduce_recursive_doubling();
    case CollectiveFamily::Allgather:
      if (a == A::RecursiveDoubling) return allgather_recursive_doubling();
      if (a == A::Binomial) {
        with_root(0);
        gather_binomial();
        return bcast_binomial(blocks(0, n_));
      }
      return allgather_ring();
    case CollectiveFamily::Alltoall:
      return a == A::Linear ? alltoall_linear() : alltoall_pairwise();
    case CollectiveFamily::ReduceScatter:
      if (a == A::Binomial) {
        with_root(0);
        reduce_binomial(blocks(0, n_));
        return scatter_binomial();
      }
      return reduce_scatter_ring();
    case CollectiveFamily::Scan:
      return a == A::RecursiveDoubling ? scan_recursive_doubling() : scan_linear();
  }
}

// The model's rules (include/wisp/generate/model.hpp): wait as the operation's class says, then
// ceil(log2 n) transfers of b bytes, each taking L + b/B on a contention-free network.
void Collective::analytic() {
  SyncPoint& s = w_.sync(call_.key, n_, has_root_ ? root_ : kNone);
  arrive(w_, s, me_);
  const Rank me = self_.rank();
  switch (classify(call_.op)) {
    case CollectiveClass::OneToN:
      if (!has_root_ || me_ != root_) wait_for_root(w_, s, me);
      break;
    case CollectiveClass::NToOne:
      if (has_root_ && me_ == root_) wait_for_all(w_, s, me);
      break;
    case CollectiveClass::Prefix:
      wait_for_prefix(w_, s, me_, me);
      break;
    default:
      wait_for_all(w_, s, me);
      break;
  }
  leave(w_, call_.key);
  const std::uint64_t bytes = w_.options.zero_communication ? 0 : b_;
  for (std::uint32_t k = 0, rounds = ceil_log2(n_); k < rounds; ++k) {
    const std::uint32_t partner = (me_ + (1u << k)) % n_;
    ++w_.stats.messages;
    sg::Comm::sendto(self_.host(), w_.host_of_rank[global(partner)], bytes);
  }
}

void Collective::barrier_dissemination() {
  for (std::uint32_t k = 1; k < n_; k <<= 1) exchange((me_ + k) % n_, 0, (me_ + n_ - k) % n_, 0);
}

void Collective::bcast_binomial(std::uint64_t bytes) {
  const std::uint32_t v = rel(me_);
  std::uint32_t mask = 1;
  while (mask < n_) {
    if (v & mask) {
      receive(abs(v - mask), bytes);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n_) post_send(abs(v + mask), bytes);
  wait();
}

void Collective::bcast_linear(std::uint64_t bytes) {
  if (me_ != root_) return receive(root_, bytes);
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_send(j, bytes);
  wait();
}

void Collective::bcast_chain(std::uint64_t bytes) {
  const std::uint32_t v = rel(me_);
  if (v > 0) receive(abs(v - 1), bytes);
  if (v + 1 < n_) send(abs(v + 1), bytes);
}

void Collective::reduce_binomial(std::uint64_t bytes) {
  const std::uint32_t v = rel(me_);
  for (std::uint32_t mask = 1; mask < n_; mask <<= 1) {
    if (v & mask) return send(abs(v - mask), bytes);
    if (v + mask < n_) receive(abs(v + mask), bytes);
  }
}

void Collective::reduce_linear(std::uint64_t bytes) {
  if (me_ != root_) return send(root_, bytes);
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_receive(j, bytes);
  wait();
}

void Collective::gather_binomial() {
  const std::uint32_t v = rel(me_);
  for (std::uint32_t mask = 1; mask < n_; mask <<= 1) {
    if (v & mask) return send(abs(v - mask), blocks(v, mask));
    if (v + mask < n_) receive(abs(v + mask), blocks(v + mask, mask));
  }
}

void Collective::gather_linear() {
  if (me_ != root_) return send(root_, block(me_));
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_receive(j, block(j));
  wait();
}

void Collective::scatter_binomial() {
  const std::uint32_t v = rel(me_);
  std::uint32_t mask = 1;
  while (mask < n_) {
    if (v & mask) {
      receive(abs(v - mask), blocks(v, mask));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n_) post_send(abs(v + mask), blocks(v + mask, mask));
  wait();
}

void Collective::scatter_linear() {
  if (me_ != root_) return receive(root_, block(me_));
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_send(j, block(j));
  wait();
}

// MPICH's recursive doubling: with n = 2^k + rem, the first 2·rem ranks pair up first (the even
// one hands its data to the odd one and gets the result back at the end).
void Collective::allreduce_recursive_doubling() {
  std::uint32_t pof2 = 1;
  while (pof2 * 2 <= n_) pof2 *= 2;
  const std::uint32_t rem = n_ - pof2;
  std::uint32_t newrank = kNone;
  if (me_ < 2 * rem) {
    if (me_ % 2 == 0)
      send(me_ + 1, b_);
    else {
      receive(me_ - 1, b_);
      newrank = me_ / 2;
    }
  } else {
    newrank = me_ - rem;
  }
  if (newrank != kNone) {
    for (std::uint32_t mask = 1; mask < pof2; mask <<= 1) {
      const std::uint32_t newdst = newrank ^ mask;
      const std::uint32_t dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      exchange(dst, b_, dst, b_);
    }
  }
  if (me_ < 2 * rem) {
    if (me_ % 2 == 1)
      send(me_ - 1, b_);
    else
      receive(me_ + 1, b_);
  }
}

// Ring reduce-scatter then ring allgather: 2(n-1) steps of ceil(b/n) bytes.
void Collective::allreduce_ring() {
  const std::uint64_t chunk = (b_ + n_ - 1) / n_;
  const std::uint32_t right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  for (std::uint32_t s = 0; s + 1 < 2 * n_ - 1; ++s) exchange(right, chunk, left, chunk);
}

void Collective::allgather_ring() {
  const std::uint32_t right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  for (std::uint32_t s = 0; s + 1 < n_; ++s)
    exchange(right, block((me_ + n_ - s) % n_), left, block((me_ + 2 * n_ - 1 - s) % n_));
}

void Collective::allgather_recursive_doubling() {
  if ((n_ & (n_ - 1)) != 0) return allgather_ring();  // needs a power of two
  auto group = [&](std::uint32_t member, std::uint32_t mask) {
    const std::uint32_t first = member & ~(mask - 1);
    if (!variable_) return b_ * mask;
    std::uint64_t sum = 0;
    for (std::uint32_t j = first; j < first + mask; ++j) sum += block(j);
    return sum;
  };
  for (std::uint32_t mask = 1; mask < n_; mask <<= 1) {
    const std::uint32_t partner = me_ ^ mask;
    exchange(partner, group(me_, mask), partner, group(partner, mask));
  }
}

void Collective::alltoall_pairwise() {
  for (std::uint32_t s = 1; s < n_; ++s) {
    const std::uint32_t to = (me_ + s) % n_, from = (me_ + n_ - s) % n_;
    exchange(to, pair(me_, to), from, pair(from, me_));
  }
}

void Collective::alltoall_linear() {
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != me_) post_receive(j, pair(j, me_));
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != me_) post_send(j, pair(me_, j));
  wait();
}

void Collective::reduce_scatter_ring() {
  const std::uint32_t right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  for (std::uint32_t s = 0; s + 1 < n_; ++s)
    exchange(right, block((me_ + 2 * n_ - 1 - s) % n_), left, block((me_ + 2 * n_ - 2 - s) % n_));
}

void Collective::scan_linear() {
  if (me_ > 0) receive(me_ - 1, b_);
  if (me_ + 1 < n_) send(me_ + 1, b_);
}

void Collective::scan_recursive_doubling() {
  for (std::uint32_t k = 1; k < n_; k <<= 1) {
    if (me_ + k < n_) post_send(me_ + k, b_);
    if (me_ >= k) post_receive(me_ - k, b_);
    wait();
  }
}

}  // namespace

void run_collective(RankActor& self, const CollectiveCall& call) { Collective(self, call).run(); }

}  // namespace wisp::replay_impl
