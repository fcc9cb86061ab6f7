// Hand-built traces. See hand_trace.hpp.
#include "hand_trace.hpp"

#include "wisp/generate/generators.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

namespace wisp::test {

HandTrace::HandTrace(std::uint32_t ranks) {
  defs_.clock = Clock{1'000'000'000, 0, 0};
  defs_.program_name = "hand";
  for (Rank r = 0; r < ranks; ++r) {
    Location loc;
    loc.group_name = fmt::format("MPI Rank {}", r);
    loc.otf2_id = r;
    defs_.ranks.push_back(loc);
  }
  Communicator w{"MPI_COMM_WORLD", {}, false, kNone};
  for (Rank r = 0; r < ranks; ++r) w.members.push_back(r);
  world_ = defs_.add_comm(std::move(w));
  // Regions are added lazily; the builder keeps a reference to its own copy of the definitions.
  builder_ = std::make_unique<TraceBuilder>(defs_);
  pending_.resize(ranks);
}

CommId HandTrace::comm(std::vector<Rank> members) {
  return builder_->defs().add_comm(Communicator{"sub", std::move(members), false, world_});
}

RegionId HandTrace::region(const std::string& name) {
  Definitions& d = builder_->defs();
  if (auto id = d.find_region(name)) return *id;
  return d.add_region(make_region(name));
}

void HandTrace::enter(Rank r, double t, const std::string& name) { b(r).enter(t, region(name)); }
void HandTrace::leave(Rank r, double t, const std::string& name) { b(r).leave(t, region(name)); }
void HandTrace::work(Rank r, double from, double to, const std::string& name) {
  enter(r, from, name);
  leave(r, to, name);
}

void HandTrace::send(Rank r, double enter_t, double leave_t, Rank to, int tag, std::uint64_t bytes) {
  enter(r, enter_t, "MPI_Send");
  b(r).send(enter_t, to, world_, tag, bytes);
  leave(r, leave_t, "MPI_Send");
}

void HandTrace::recv(Rank r, double enter_t, double leave_t, Rank from, int tag, std::uint64_t bytes) {
  enter(r, enter_t, "MPI_Recv");
  b(r).recv(leave_t, from, world_, tag, bytes);
  leave(r, leave_t, "MPI_Recv");
}

void HandTrace::ssend(Rank r, double enter_t, double leave_t, Rank to, int tag, std::uint64_t bytes) {
  enter(r, enter_t, "MPI_Ssend");
  b(r).send(enter_t, to, world_, tag, bytes);
  leave(r, leave_t, "MPI_Ssend");
}

void HandTrace::sendrecv(Rank r, double enter_t, double leave_t, Rank to, Rank from, int tag, std::uint64_t bytes) {
  enter(r, enter_t, "MPI_Sendrecv");
  b(r).send(enter_t, to, world_, tag, bytes);
  b(r).recv(leave_t, from, world_, tag, bytes);
  leave(r, leave_t, "MPI_Sendrecv");
}

std::uint64_t HandTrace::isend(Rank r, double enter_t, double leave_t, Rank to, int tag, std::uint64_t bytes) {
  const std::uint64_t id = next_request_++;
  enter(r, enter_t, "MPI_Isend");
  b(r).isend(enter_t, to, world_, tag, bytes, id);
  leave(r, leave_t, "MPI_Isend");
  pending_[r][id] = Pending{true, to, tag, bytes};
  return id;
}

std::uint64_t HandTrace::irecv(Rank r, double enter_t, double leave_t, Rank from, int tag, std::uint64_t bytes) {
  const std::uint64_t id = next_request_++;
  enter(r, enter_t, "MPI_Irecv");
  b(r).irecv_request(enter_t, id);
  leave(r, leave_t, "MPI_Irecv");
  pending_[r][id] = Pending{false, from, tag, bytes};
  return id;
}

void HandTrace::wait(Rank r, double enter_t, double leave_t, const std::vector<std::uint64_t>& requests) {
  const std::string fn = requests.size() == 1 ? "MPI_Wait" : "MPI_Waitall";
  enter(r, enter_t, fn);
  for (std::uint64_t id : requests) {
    const Pending p = pending_[r].at(id);
    if (p.send)
      b(r).isend_complete(leave_t, id);
    else
      b(r).irecv(leave_t, p.peer, world_, p.tag, p.bytes, id);
    pending_[r].erase(id);
  }
  leave(r, leave_t, fn);
}

void HandTrace::collective(Rank r, double enter_t, double leave_t, const std::string& function, CommId c, Rank root,
                           std::uint64_t bytes) {
  static const std::map<std::string, CollectiveOp> ops = {
      {"MPI_Barrier", CollectiveOp::Barrier},     {"MPI_Bcast", CollectiveOp::Bcast},
      {"MPI_Scatter", CollectiveOp::Scatter},     {"MPI_Gather", CollectiveOp::Gather},
      {"MPI_Reduce", CollectiveOp::Reduce},       {"MPI_Allreduce", CollectiveOp::Allreduce},
      {"MPI_Allgather", CollectiveOp::Allgather}, {"MPI_Alltoall", CollectiveOp::Alltoall},
      {"MPI_Scan", CollectiveOp::Scan},           {"MPI_Exscan", CollectiveOp::Exscan},
      {"MPI_Alltoallv", CollectiveOp::Alltoallv}, {"MPI_Comm_split", CollectiveOp::CreateHandle}};
  const CollectiveOp op = ops.at(function);
  const std::uint32_t n = builder_->defs().comms[c].size();
  const CollectiveBytes cb = collective_bytes(op, bytes, n, root == r);
  enter(r, enter_t, function);
  b(r).collective_begin(enter_t);
  b(r).collective_end(leave_t, op, c, root, cb.sent, cb.received);
  leave(r, leave_t, function);
}

void HandTrace::init(Rank r, double enter_t, double leave_t) {
  enter(r, enter_t, "MPI_Init");
  b(r).collective_begin(enter_t);
  b(r).collective_end(leave_t, CollectiveOp::CreateHandle, world_, kNone, 0, 0);
  leave(r, leave_t, "MPI_Init");
}

void HandTrace::finalize(Rank r, double enter_t, double leave_t) {
  enter(r, enter_t, "MPI_Finalize");
  b(r).collective_begin(enter_t);
  b(r).collective_end(leave_t, CollectiveOp::DestroyHandle, world_, kNone, 0, 0);
  leave(r, leave_t, "MPI_Finalize");
}

double metric_of(const Trace& t, const MetricTable& table, const char* metric, const std::string& cp, Rank r) {
  return metric_value(table, metric, callpath(t, cp), r);
}

Trace pop_two_rank_trace() {
  Definitions d;
  d.ranks.resize(2);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
  for (const char* n : {"main", "MPI_Comm_rank", "MPI_Send", "MPI_Recv"}) d.add_region(make_region(n));
  const auto R = [&](const char* n) { return *d.find_region(n); };
  TraceBuilder b(d);
  auto& r0 = b.rank(0);
  r0.enter(0, R("main"));
  r0.enter(1, R("MPI_Comm_rank"));
  r0.leave(2, R("MPI_Comm_rank"));
  r0.enter(4, R("MPI_Send"));
  r0.send(4, 1, d.world, 0, 8);
  r0.leave(4.5, R("MPI_Send"));
  r0.leave(6, R("main"));
  auto& r1 = b.rank(1);
  r1.enter(0, R("main"));
  r1.enter(1, R("MPI_Recv"));
  r1.recv(5, 0, d.world, 0, 8);
  r1.leave(5, R("MPI_Recv"));
  r1.leave(6, R("main"));
  return b.finish();
}

Trace small_wavefront_with_slow_border() {
  gen::WavefrontOptions o;
  o.px = 3;
  o.py = 2;
  o.iterations = 3;
  o.extra_ranks = {0, 3};
  o.extra = 0.5;
  return gen::generate_wavefront(o);
}

Trace small_mpmd_with_slow_mesh() {
  gen::MpmdOptions o;
  o.particle_ranks = 4;
  o.mesh_ranks = 2;
  o.steps = 5;
  o.mesh_work = 0.2;
  return gen::generate_mpmd(o);
}

}  // namespace wisp::test
