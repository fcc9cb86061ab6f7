// wisp's collective algorithms as message schedules (collective_schedule.hpp). Message sizes are
// computed identically by sender and receiver (from the instance's member records for the
// v-variants), so both sides always agree on the eager/rendezvous protocol of every message.
#include "collective_schedule.hpp"

#include <algorithm>

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

class CollectiveSchedule {
 public:
  CollectiveSchedule(const Trace& trace, const CollectiveCall& call, const CollectiveShape& shape,
                     CollectiveMessenger& out)
      : trace_(trace),
        op_(call.op),
        instance_(call.instance),
        comm_(trace.defs.comms[call.comm]),
        n_(shape.size),
        me_(shape.me),
        root_(shape.root),
        b_(shape.buffer),
        variable_(is_variable(call.op) && call.instance != kNone),
        out_(out) {}

  void run(CollectiveAlgorithm a);

 private:
  // --- helpers --------------------------------------------------------------------------
  std::uint32_t rel(std::uint32_t local) const { return (local + n_ - root_) % n_; }
  std::uint32_t abs(std::uint32_t relative) const { return (relative + root_) % n_; }
  Rank global(std::uint32_t local) const { return comm_.members[local]; }

  const CollectiveRecord* record_of(std::uint32_t local) const {
    const CollectiveInstance& inst = trace_.collectives[instance_];
    if (!inst.complete) return nullptr;
    const CollectiveMember& m = trace_.collective_members[inst.first + local];
    return &trace_.ranks[m.rank].collectives[m.record];
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

  void post_send(std::uint32_t to, std::uint64_t bytes) { out_.post_send(to, bytes); }
  void post_receive(std::uint32_t from, std::uint64_t bytes) { out_.post_receive(from, bytes); }
  void wait() { out_.wait(); }
  void send(std::uint32_t to, std::uint64_t bytes) {
    post_send(to, bytes);
    wait();
  }
  void receive(std::uint32_t from, std::uint64_t bytes) { out_.receive(from, bytes); }
  void exchange(std::uint32_t to, std::uint64_t out, std::uint32_t from, std::uint64_t in) {
    post_send(to, out);
    receive(from, in);
  }

  // --- algorithms -----------------------------------------------------------------------
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

  const Trace& trace_;
  CollectiveOp op_;
  std::uint32_t instance_;
  const Communicator& comm_;
  std::uint32_t n_;
  std::uint32_t me_;
  std::uint32_t root_;
  std::uint64_t b_;
  bool variable_;
  CollectiveMessenger& out_;
};

// One dispatch over (family, algorithm): a flat switch, a few lines over 50 on purpose.
void CollectiveSchedule::run(CollectiveAlgorithm a) {
  if (n_ <= 1 || me_ == kNone) return;
  using A = CollectiveAlgorithm;
  switch (family_of(op_)) {
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

void CollectiveSchedule::barrier_dissemination() {
  for (std::uint32_t k = 1; k < n_; k <<= 1) exchange((me_ + k) % n_, 0, (me_ + n_ - k) % n_, 0);
}

void CollectiveSchedule::bcast_binomial(std::uint64_t bytes) {
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

void CollectiveSchedule::bcast_linear(std::uint64_t bytes) {
  if (me_ != root_) return receive(root_, bytes);
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_send(j, bytes);
  wait();
}

void CollectiveSchedule::bcast_chain(std::uint64_t bytes) {
  const std::uint32_t v = rel(me_);
  if (v > 0) receive(abs(v - 1), bytes);
  if (v + 1 < n_) send(abs(v + 1), bytes);
}

void CollectiveSchedule::reduce_binomial(std::uint64_t bytes) {
  const std::uint32_t v = rel(me_);
  for (std::uint32_t mask = 1; mask < n_; mask <<= 1) {
    if (v & mask) return send(abs(v - mask), bytes);
    if (v + mask < n_) receive(abs(v + mask), bytes);
  }
}

void CollectiveSchedule::reduce_linear(std::uint64_t bytes) {
  if (me_ != root_) return send(root_, bytes);
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_receive(j, bytes);
  wait();
}

void CollectiveSchedule::gather_binomial() {
  const std::uint32_t v = rel(me_);
  for (std::uint32_t mask = 1; mask < n_; mask <<= 1) {
    if (v & mask) return send(abs(v - mask), blocks(v, mask));
    if (v + mask < n_) receive(abs(v + mask), blocks(v + mask, mask));
  }
}

void CollectiveSchedule::gather_linear() {
  if (me_ != root_) return send(root_, block(me_));
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_receive(j, block(j));
  wait();
}

void CollectiveSchedule::scatter_binomial() {
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

void CollectiveSchedule::scatter_linear() {
  if (me_ != root_) return receive(root_, block(me_));
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != root_) post_send(j, block(j));
  wait();
}

// MPICH's recursive doubling: with n = 2^k + rem, the first 2·rem ranks pair up first (the even
// one hands its data to the odd one and gets the result back at the end).
void CollectiveSchedule::allreduce_recursive_doubling() {
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
void CollectiveSchedule::allreduce_ring() {
  const std::uint64_t chunk = (b_ + n_ - 1) / n_;
  const std::uint32_t right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  for (std::uint32_t s = 0; s + 1 < 2 * n_ - 1; ++s) exchange(right, chunk, left, chunk);
}

void CollectiveSchedule::allgather_ring() {
  const std::uint32_t right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  for (std::uint32_t s = 0; s + 1 < n_; ++s)
    exchange(right, block((me_ + n_ - s) % n_), left, block((me_ + 2 * n_ - 1 - s) % n_));
}

void CollectiveSchedule::allgather_recursive_doubling() {
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

void CollectiveSchedule::alltoall_pairwise() {
  for (std::uint32_t s = 1; s < n_; ++s) {
    const std::uint32_t to = (me_ + s) % n_, from = (me_ + n_ - s) % n_;
    exchange(to, pair(me_, to), from, pair(from, me_));
  }
}

void CollectiveSchedule::alltoall_linear() {
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != me_) post_receive(j, pair(j, me_));
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != me_) post_send(j, pair(me_, j));
  wait();
}

void CollectiveSchedule::reduce_scatter_ring() {
  const std::uint32_t right = (me_ + 1) % n_, left = (me_ + n_ - 1) % n_;
  for (std::uint32_t s = 0; s + 1 < n_; ++s)
    exchange(right, block((me_ + 2 * n_ - 1 - s) % n_), left, block((me_ + 2 * n_ - 2 - s) % n_));
}

void CollectiveSchedule::scan_linear() {
  if (me_ > 0) receive(me_ - 1, b_);
  if (me_ + 1 < n_) send(me_ + 1, b_);
}

void CollectiveSchedule::scan_recursive_doubling() {
  for (std::uint32_t k = 1; k < n_; k <<= 1) {
    if (me_ + k < n_) post_send(me_ + k, b_);
    if (me_ >= k) post_receive(me_ - k, b_);
    wait();
  }
}

}  // namespace

std::vector<std::uint32_t> local_ranks(const Trace& trace, CommId comm) {
  std::vector<std::uint32_t> local(trace.rank_count(), kNone);
  const auto& members = trace.defs.comms[comm].members;
  for (std::uint32_t l = 0; l < members.size(); ++l)
    if (members[l] < local.size()) local[members[l]] = l;
  return local;
}

CollectiveShape collective_shape(const Trace& trace, const CollectiveCall& call,
                                 const std::vector<std::uint32_t>& local, Rank self) {
  CollectiveShape s;
  const Communicator& comm = trace.defs.comms[call.comm];
  s.size = static_cast<std::uint32_t>(comm.size());
  s.me = self < local.size() ? local[self] : kNone;
  if (call.root != kNone && call.root < local.size() && local[call.root] != kNone) {
    s.root = local[call.root];
    s.has_root = true;
  }
  s.buffer = collective_buffer(call.op, call.sent, call.received, s.size, self == call.root);
  return s;
}

void send_collective_messages(const Trace& trace, const CollectiveCall& call, const std::vector<std::uint32_t>& local,
                              Rank self, CollectiveAlgorithm a, CollectiveMessenger& out) {
  CollectiveSchedule(trace, call, collective_shape(trace, call, local, self), out).run(a);
}

}  // namespace wisp::replay_impl
