// The analytic model's engine: executes every rank's program by the rules in model.hpp.
// Ranks advance in passes; a rank stops at a call whose completion depends on another rank
// (a message not yet sent, a collective member not yet arrived) and resumes in a later pass.
#include "wisp/generate/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

#include "wisp/error.hpp"
#include "wisp/trace/builder.hpp"

namespace wisp::gen {

namespace {
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
bool known(double t) { return !std::isnan(t); }
}  // namespace

double ModelParams::collective(std::uint32_t comm_size, std::uint64_t buffer) const {
  if (comm_size <= 1) return 0;
  return static_cast<double>(ceil_log2(comm_size)) * transfer(buffer);
}

// ---------------------------------------------------------------------------------------------
// Program construction

RegionId RankProgram::mpi_region(std::string_view name) { return model_->region(std::string(name)); }

void RankProgram::enter(RegionId region) { ops_.push_back(Op{OpKind::Enter, {}, region}); }
void RankProgram::leave(RegionId region) { ops_.push_back(Op{OpKind::Leave, {}, region}); }
void RankProgram::compute(double seconds) {
  Op op{OpKind::Compute};
  op.seconds = seconds;
  ops_.push_back(op);
}
void RankProgram::work(RegionId region, double seconds) {
  enter(region);
  compute(seconds);
  leave(region);
}

void RankProgram::send(Rank to, std::uint64_t bytes, std::int32_t tag, CommId comm) {
  ops_.push_back(Op{OpKind::Send, {}, mpi_region("MPI_Send"), 0, to, comm, tag, bytes});
}
void RankProgram::recv(Rank from, std::uint64_t bytes, std::int32_t tag, CommId comm) {
  ops_.push_back(Op{OpKind::Recv, {}, mpi_region("MPI_Recv"), 0, from, comm, tag, bytes});
}
Request RankProgram::isend(Rank to, std::uint64_t bytes, std::int32_t tag, CommId comm) {
  ops_.push_back(Op{OpKind::Isend, {}, mpi_region("MPI_Isend"), 0, to, comm, tag, bytes, requests_});
  return Request{requests_++};
}
Request RankProgram::irecv(Rank from, std::uint64_t bytes, std::int32_t tag, CommId comm) {
  ops_.push_back(Op{OpKind::Irecv, {}, mpi_region("MPI_Irecv"), 0, from, comm, tag, bytes, requests_});
  return Request{requests_++};
}
void RankProgram::waitall(const std::vector<Request>& requests) {
  Op op{OpKind::Waitall, {}, mpi_region("MPI_Waitall")};
  op.first = static_cast<std::uint32_t>(wait_lists_.size());
  op.count = static_cast<std::uint32_t>(requests.size());
  for (const Request& r : requests) wait_lists_.push_back(r.id);
  ops_.push_back(op);
}

namespace {
CollectiveOp op_of(MpiFunction f) {
  switch (f) {
    case MpiFunction::Barrier:
      return CollectiveOp::Barrier;
    case MpiFunction::Bcast:
      return CollectiveOp::Bcast;
    case MpiFunction::Gather:
      return CollectiveOp::Gather;
    case MpiFunction::Gatherv:
      return CollectiveOp::Gatherv;
    case MpiFunction::Scatter:
      return CollectiveOp::Scatter;
    case MpiFunction::Scatterv:
      return CollectiveOp::Scatterv;
    case MpiFunction::Allgather:
      return CollectiveOp::Allgather;
    case MpiFunction::Allgatherv:
      return CollectiveOp::Allgatherv;
    case MpiFunction::Alltoall:
      return CollectiveOp::Alltoall;
    case MpiFunction::Alltoallv:
      return CollectiveOp::Alltoallv;
    case MpiFunction::Alltoallw:
      return CollectiveOp::Alltoallw;
    case MpiFunction::Allreduce:
      return CollectiveOp::Allreduce;
    case MpiFunction::Reduce:
      return CollectiveOp::Reduce;
    case MpiFunction::ReduceScatter:
      return CollectiveOp::ReduceScatter;
    case MpiFunction::ReduceScatterBlock:
      return CollectiveOp::ReduceScatterBlock;
    case MpiFunction::Scan:
      return CollectiveOp::Scan;
    case MpiFunction::Exscan:
      return CollectiveOp::Exscan;
    default:
      throw Error(fmt::format("model: {} is not a collective", to_string(f)));
  }
}
}  // namespace

void RankProgram::collective(MpiFunction function, CommId comm, std::uint64_t buffer, Rank root) {
  Op op{OpKind::Collective, op_of(function), mpi_region(to_string(function)), 0, root, comm};
  op.bytes = buffer;
  ops_.push_back(op);
}

void RankProgram::comm_split(CommId parent, CommId created) {
  Op op{OpKind::Split, CollectiveOp::CreateHandle, mpi_region("MPI_Comm_split"), 0, kNone, parent};
  op.first = created;
  ops_.push_back(op);
}

Model::Model(std::uint32_t ranks, std::string program_name) {
  defs_.clock = Clock{1'000'000'000, 1'000'000'000'000, 0};
  defs_.program_name = std::move(program_name);
  defs_.creator = "wisp generate";
  for (Rank r = 0; r < ranks; ++r) {
    Location loc;
    loc.group_name = fmt::format("MPI Rank {}", r);
    loc.node = fmt::format("node-{}", r);  // the model's: every rank on a host of its own
    loc.otf2_id = r;
    defs_.ranks.push_back(loc);
  }
  Communicator world{"MPI_COMM_WORLD", {}, false, kNone};
  for (Rank r = 0; r < ranks; ++r) world.members.push_back(r);
  defs_.world = defs_.add_comm(std::move(world));
  defs_.add_comm(Communicator{"MPI_COMM_SELF", {}, true, kNone});
  for (Rank r = 0; r < ranks; ++r) programs_.push_back(RankProgram(this));
  launch_.assign(ranks, 0.0);
}

RegionId Model::region(const std::string& name) {
  if (auto id = defs_.find_region(name)) return *id;
  return defs_.add_region(make_region(name));
}

CommId Model::add_comm(std::string name, std::vector<Rank> members) {
  return defs_.add_comm(Communicator{std::move(name), std::move(members), false, defs_.world});
}

// ---------------------------------------------------------------------------------------------
// Execution

struct Engine {
  using Op = RankProgram::Op;
  using OpKind = RankProgram::OpKind;

  struct Msg {
    double send_ready = kUnknown;
    double recv_post = kUnknown;
    std::uint64_t bytes = 0;
  };
  struct Channel {
    std::deque<std::uint32_t> sends;  // messages whose receive is not posted yet
    std::deque<std::uint32_t> recvs;  // messages whose send is not posted yet
  };
  struct RequestState {
    std::uint32_t msg = kNone;
    const Op* op = nullptr;  // the Isend/Irecv that created it
  };
  struct Instance {
    std::vector<double> ready;  // per communicator-local rank
  };
  struct RankState {
    std::size_t pc = 0;
    double t = 0;
    bool posted = false;  // the current op's first half (Enter, post) is done
    double ready = 0;
    std::uint32_t msg = kNone;
    std::uint32_t instance = kNone;
    std::vector<RequestState> requests;
    std::map<CommId, std::uint32_t> collectives_on;  // collectives this rank reached per comm
  };

  const ModelParams& p;
  Model& model;
  TraceBuilder& builder;
  std::vector<std::vector<Op>> ops;
  std::vector<Msg> msgs;
  std::map<std::tuple<CommId, Rank, Rank, std::int32_t>, Channel> channels;
  std::vector<std::vector<Instance>> instances;   // per comm
  std::vector<std::vector<std::uint32_t>> local;  // per comm: global -> local rank
  std::vector<RankState> state;
  RegionId init_region, finalize_region, main_region;

  double snap(double t) const { return model.defs_.clock.snap(t); }
  bool eager(const Msg& m) const { return m.bytes <= p.eager_limit; }

  double sender_done(std::uint32_t id) const {
    const Msg& m = msgs[id];
    if (eager(m)) return m.send_ready;
    if (!known(m.recv_post)) return kUnknown;
    return std::max(m.send_ready, m.recv_post) + p.transfer(m.bytes);
  }
  double receiver_done(std::uint32_t id) const {
    const Msg& m = msgs[id];
    if (!known(m.send_ready)) return kUnknown;
    if (eager(m)) return m.send_ready + p.transfer(m.bytes);
    return std::max(m.send_ready, m.recv_post) + p.transfer(m.bytes);
  }

  std::uint32_t post_send(Rank r, const Op& op, double ready) {
    Channel& ch = channels[{op.comm, r, op.peer, op.tag}];
    std::uint32_t id;
    if (!ch.recvs.empty()) {
      id = ch.recvs.front();
      ch.recvs.pop_front();
    } else {
      id = static_cast<std::uint32_t>(msgs.size());
      msgs.emplace_back();
      ch.sends.push_back(id);
    }
    msgs[id].send_ready = ready;
    msgs[id].bytes = op.bytes;
    return id;
  }
  std::uint32_t post_recv(Rank r, const Op& op, double ready) {
    Channel& ch = channels[{op.comm, op.peer, r, op.tag}];
    std::uint32_t id;
    if (!ch.sends.empty()) {
      id = ch.sends.front();
      ch.sends.pop_front();
    } else {
      id = static_cast<std::uint32_t>(msgs.size());
      msgs.emplace_back();
      ch.recvs.push_back(id);
    }
    msgs[id].recv_post = ready;
    return id;
  }

  std::uint32_t local_rank(CommId c, Rank r) const { return local[c][r]; }

  std::uint32_t arrive(Rank r, CommId comm, double ready) {
    const std::uint32_t n = state[r].collectives_on[comm]++;
    auto& list = instances[comm];
    if (list.size() <= n) list.resize(n + 1);
    Instance& inst = list[n];
    if (inst.ready.empty()) inst.ready.assign(model.defs_.comms[comm].size(), kUnknown);
    inst.ready[local_rank(comm, r)] = ready;
    return n;
  }

  // Latest ready time of local ranks [0, upto), or unknown if one has not arrived.
  static double latest(const Instance& inst, std::size_t upto) {
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < upto; ++i) {
      if (!known(inst.ready[i])) return kUnknown;
      m = std::max(m, inst.ready[i]);
    }
    return m;
  }

  double collective_exit(Rank r, const Op& op) const {
    const CommId comm = op.comm;
    const Instance& inst = instances[comm][state[r].instance];
    const auto n = static_cast<std::uint32_t>(inst.ready.size());
    const std::uint32_t me = local_rank(comm, r);
    const double own = inst.ready[me];
    const double cost = op.kind == OpKind::Init ? p.init_time : p.collective(n, op.bytes);
    const bool is_root = op.peer == r;
    switch (classify(op.coll)) {
      case CollectiveClass::OneToN: {
        if (is_root) return own + cost;
        const double root = inst.ready[local_rank(comm, op.peer)];
        return known(root) ? std::max(own, root) + cost : kUnknown;
      }
      case CollectiveClass::NToOne: {
        if (!is_root) return own + cost;
        const double all = latest(inst, n);
        return known(all) ? all + cost : kUnknown;
      }
      case CollectiveClass::Prefix: {
        const double upto = latest(inst, me + 1);
        return known(upto) ? upto + cost : kUnknown;
      }
      default: {
        const double all = latest(inst, n);
        return known(all) ? all + cost : kUnknown;
      }
    }
  }

  // Runs rank r until it blocks or ends; true if it did anything.
  bool advance(Rank r) {
    RankState& s = state[r];
    RankBuilder& b = builder.rank(r);
    const auto& program = ops[r];
    bool progress = false;
    while (s.pc < program.size()) {
      const Op& op = program[s.pc];
      switch (op.kind) {
        case OpKind::Enter:
          b.enter(snap(s.t), op.region);
          break;
        case OpKind::Leave:
          b.leave(snap(s.t), op.region);
          break;
        case OpKind::Compute:
          s.t += op.seconds;
          break;
        case OpKind::Send: {
          if (!s.posted) {
            b.enter(snap(s.t), op.region);
            b.send(snap(s.t), op.peer, op.comm, op.tag, op.bytes);
            s.msg = post_send(r, op, s.t + p.overhead);
            s.posted = progress = true;
          }
          const double done = sender_done(s.msg);
          if (!known(done)) return progress;
          s.t = done;
          b.leave(snap(s.t), op.region);
          break;
        }
        case OpKind::Recv: {
          if (!s.posted) {
            b.enter(snap(s.t), op.region);
            s.ready = s.t + p.overhead;
            s.msg = post_recv(r, op, s.ready);
            s.posted = progress = true;
          }
          const double arrival = receiver_done(s.msg);
          if (!known(arrival)) return progress;
          s.t = std::max(s.ready, arrival);
          b.recv(snap(s.t), op.peer, op.comm, op.tag, op.bytes);
          b.leave(snap(s.t), op.region);
          break;
        }
        case OpKind::Isend: {
          b.enter(snap(s.t), op.region);
          b.isend(snap(s.t), op.peer, op.comm, op.tag, op.bytes, op.first);
          s.t += p.overhead;
          s.requests[op.first] = RequestState{post_send(r, op, s.t), &op};
          b.leave(snap(s.t), op.region);
          break;
        }
        case OpKind::Irecv: {
          b.enter(snap(s.t), op.region);
          b.irecv_request(snap(s.t), op.first);
          s.t += p.overhead;
          s.requests[op.first] = RequestState{post_recv(r, op, s.t), &op};
          b.leave(snap(s.t), op.region);
          break;
        }
        case OpKind::Waitall: {
          if (!s.posted) {
            b.enter(snap(s.t), op.region);
            s.ready = s.t + p.overhead;
            s.posted = progress = true;
          }
          double done = s.ready;
          const auto& list = model.programs_[r].wait_lists_;
          for (std::uint32_t k = 0; k < op.count; ++k) {
            const RequestState& req = s.requests[list[op.first + k]];
            const bool is_send = req.op->kind == OpKind::Isend;
            const double c = is_send ? sender_done(req.msg) : receiver_done(req.msg);
            if (!known(c)) return progress;
            done = std::max(done, c);
          }
          s.t = done;
          for (std::uint32_t k = 0; k < op.count; ++k) {
            const std::uint32_t id = list[op.first + k];
            const Op& origin = *s.requests[id].op;
            if (origin.kind == OpKind::Isend)
              b.isend_complete(snap(s.t), id);
            else
              b.irecv(snap(s.t), origin.peer, origin.comm, origin.tag, origin.bytes, id);
          }
          b.leave(snap(s.t), op.region);
          break;
        }
        case OpKind::Collective:
        case OpKind::Init:
        case OpKind::Finalize:
        case OpKind::Split: {
          if (!s.posted) {
            b.enter(snap(s.t), op.region);
            b.collective_begin(snap(s.t));
            s.instance = arrive(r, op.comm, s.t + p.overhead);
            s.posted = progress = true;
          }
          const double exit = collective_exit(r, op);
          if (!known(exit)) return progress;
          s.t = exit;
          if (op.kind == OpKind::Split) b.comm_create(snap(s.t), op.first);
          const auto n = model.defs_.comms[op.comm].size();
          const auto bytes = collective_bytes(op.coll, op.bytes, n, op.peer == r);
          b.collective_end(snap(s.t), op.coll, op.comm, op.peer, bytes.sent, bytes.received);
          b.leave(snap(s.t), op.region);
          break;
        }
      }
      s.posted = false;
      ++s.pc;
      progress = true;
    }
    return progress;
  }

  std::string blocked_ranks() const {
    std::string out;
    for (Rank r = 0; r < state.size() && out.size() < 200; ++r)
      if (state[r].pc < ops[r].size())
        out += fmt::format("{}rank {} at op {}", out.empty() ? "" : ", ", r, state[r].pc);
    return out;
  }

  void run() {
    const Rank P = model.rank_count();
    for (Rank r = 0; r < P; ++r) {
      state[r].t = model.launch_[r];
      state[r].requests.resize(model.programs_[r].requests_);
      builder.rank(r).program_begin(snap(state[r].t));
    }
    std::vector<bool> finished(P, false);
    Rank remaining = P;
    while (remaining > 0) {
      bool progress = false;
      for (Rank r = 0; r < P; ++r) {
        if (finished[r]) continue;
        progress |= advance(r);
        if (state[r].pc == ops[r].size()) {
          finished[r] = true;
          --remaining;
          builder.rank(r).program_end(snap(state[r].t));
        }
      }
      if (!progress && remaining > 0) throw Error("model: the generated programs deadlock (" + blocked_ranks() + ")");
    }
  }
};

Trace Model::run(const ModelParams& params) {
  const RegionId main_region = region("main");
  const RegionId init_region = region("MPI_Init");
  const RegionId finalize_region = region("MPI_Finalize");
  const Rank P = rank_count();
  TraceBuilder builder(defs_);
  Engine engine{params, *this, builder, {}, {}, {}, {}, {}, {}, init_region, finalize_region, main_region};
  engine.instances.resize(defs_.comms.size());
  engine.local.resize(defs_.comms.size());
  for (CommId c = 0; c < defs_.comms.size(); ++c) {
    engine.local[c].assign(P, kNone);
    for (std::uint32_t l = 0; l < defs_.comms[c].members.size(); ++l) engine.local[c][defs_.comms[c].members[l]] = l;
  }
  engine.state.resize(P);
  engine.ops.resize(P);
  for (Rank r = 0; r < P; ++r) {
    auto& ops = engine.ops[r];
    using Op = RankProgram::Op;
    using OpKind = RankProgram::OpKind;
    ops.reserve(programs_[r].ops_.size() + 4);
    ops.push_back(Op{OpKind::Enter, {}, main_region});
    ops.push_back(Op{OpKind::Init, CollectiveOp::CreateHandle, init_region, 0, kNone, defs_.world});
    ops.insert(ops.end(), programs_[r].ops_.begin(), programs_[r].ops_.end());
    ops.push_back(Op{OpKind::Finalize, CollectiveOp::DestroyHandle, finalize_region, 0, kNone, defs_.world});
    ops.push_back(Op{OpKind::Leave, {}, main_region});
  }
  engine.run();
  return builder.finish();
}

}  // namespace wisp::gen
