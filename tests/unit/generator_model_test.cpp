// The generators' analytic model (include/wisp/generate/model.hpp) checked on small instances
// whose event times are worked out by hand from the stated rules. Parameters are chosen so the
// arithmetic is easy: L = 1 us, o = 1 us, B = 1 GB/s, E = 1000 bytes, MPI_Init 1 ms.
#include <catch2/catch.hpp>

#include <cmath>

#include "wisp/generate/generators.hpp"

using namespace wisp;
using namespace wisp::gen;

namespace {

ModelParams easy() {
  ModelParams p;
  p.latency = 1e-6;
  p.overhead = 1e-6;
  p.bandwidth = 1e9;
  p.eager_limit = 1000;
  p.init_time = 1e-3;
  return p;
}

// Time of the n-th event of `kind` in region `region` on rank r (n counts from 0).
double time_of(const Trace& t, Rank r, EventKind kind, const std::string& region, int n = 0) {
  for (const Event& e : t.ranks[r].events) {
    if (e.kind != kind) continue;
    if (t.defs.region_of(e.ref).name != region) continue;
    if (n-- == 0) return e.time;
  }
  FAIL("no such event");
  return 0;
}
double enter(const Trace& t, Rank r, const std::string& region, int n = 0) {
  return time_of(t, r, EventKind::Enter, region, n);
}
double leave(const Trace& t, Rank r, const std::string& region, int n = 0) {
  return time_of(t, r, EventKind::Leave, region, n);
}

constexpr double kNs = 1e-9;  // the clock grid: every time is rounded to 1 ns

}  // namespace

TEST_CASE("model: MPI_Init synchronises, eager and rendezvous messages follow L + s/B") {
  // Both ranks enter MPI_Init at 0: ready at 1 us, both leave at 1 us + 1 ms = 1.001 ms.
  const double t0 = 0.001001;
  Model m(2);
  const RegionId work = m.region("work");
  m.rank(0).work(work, 1e-3);
  m.rank(0).send(1, 100, 0, m.world());   // eager
  m.rank(0).send(1, 2000, 1, m.world());  // rendezvous, receiver already waiting
  m.rank(0).send(1, 2000, 2, m.world());  // rendezvous, receiver late (late receiver)
  m.rank(1).recv(0, 100, 0, m.world());
  m.rank(1).recv(0, 2000, 1, m.world());
  m.rank(1).work(work, 3e-3);
  m.rank(1).recv(0, 2000, 2, m.world());
  const Trace t = m.run(easy());
  CHECK(leave(t, 0, "MPI_Init") == Approx(t0).margin(kNs));
  CHECK(leave(t, 1, "MPI_Init") == Approx(t0).margin(kNs));
  // Eager: sender enters at t0 + 1 ms, leaves at ready = +1 us; arrival = ready + 1 us + 100 ns.
  const double send1 = t0 + 1e-3;
  CHECK(enter(t, 0, "MPI_Send", 0) == Approx(send1).margin(kNs));
  CHECK(leave(t, 0, "MPI_Send", 0) == Approx(send1 + 1e-6).margin(kNs));
  CHECK(leave(t, 1, "MPI_Recv", 0) == Approx(send1 + 1e-6 + 1e-6 + 100e-9).margin(kNs));
  // Rendezvous: the sender enters at send1 + 1 us and is ready 1 us later (send1 + 2 us); the
  // receiver posts when its first receive is done plus 1 us: recv0 + 1 us = send1 + 3.1 us,
  // later than the sender. The transfer runs from the post for 1 us + 2000 B / B = 3 us.
  const double recv0 = send1 + 1e-6 + 1e-6 + 100e-9;
  const double end1 = recv0 + 1e-6 + 3e-6;
  CHECK(leave(t, 0, "MPI_Send", 1) == Approx(end1).margin(kNs));
  CHECK(leave(t, 1, "MPI_Recv", 1) == Approx(end1).margin(kNs));
  // Late receiver: rank 1 works 3 ms more, posts at +1 us; the sender waits in MPI_Send.
  const double post3 = end1 + 3e-3 + 1e-6;
  CHECK(enter(t, 0, "MPI_Send", 2) == Approx(end1).margin(kNs));
  CHECK(leave(t, 0, "MPI_Send", 2) == Approx(post3 + 3e-6).margin(kNs));
  CHECK(leave(t, 1, "MPI_Recv", 2) == Approx(post3 + 3e-6).margin(kNs));
  // Score-P layout: MpiSend at the Enter time, MpiRecv at the Leave time.
  const auto& e0 = t.ranks[0].events;
  for (std::size_t i = 1; i < e0.size(); ++i)
    if (e0[i].kind == EventKind::MpiSend) CHECK(e0[i].time == e0[i - 1].time);
  CHECK(t.messages.size() == 3);
}

TEST_CASE("model: Isend/Irecv/Waitall complete at the latest arrival") {
  Model m(2);
  const RegionId work = m.region("work");
  for (Rank r = 0; r < 2; ++r) {
    auto& p = m.rank(r);
    p.work(work, r == 0 ? 1e-3 : 2e-3);
    const Request in = p.irecv(1 - r, 500, 0, m.world());
    const Request out = p.isend(1 - r, 500, 0, m.world());
    p.waitall({in, out});
  }
  const Trace t = m.run(easy());
  const double t0 = 0.001001;
  // Rank r: Irecv at t0 + w_r (leaves +1 us), Isend at +1 us (leaves +1 us), Waitall at +2 us,
  // ready +3 us. The message from rank 1 is injected at t0 + 2 ms + 2 us, arrives 1.5 us later.
  const double isend1_ready = t0 + 2e-3 + 2e-6;
  const double arrival_at_0 = isend1_ready + 1e-6 + 0.5e-6;
  CHECK(leave(t, 0, "MPI_Waitall") == Approx(arrival_at_0).margin(kNs));
  // Rank 1's Waitall is ready at t0 + 2 ms + 3 us, after rank 0's message arrived.
  CHECK(leave(t, 1, "MPI_Waitall") == Approx(t0 + 2e-3 + 3e-6).margin(kNs));
  CHECK(t.messages.size() == 2);
}

TEST_CASE("model: collectives follow their class rules on a sub-communicator") {
  // Four ranks; rank r works r ms before each collective, so ready_r = T + r ms + 1 us.
  // C = ceil(log2 4) * (L + b/B) = 2 * (1 us + 1 us) = 4 us for b = 1000 bytes.
  Model m(4);
  const RegionId work = m.region("work");
  const CommId all = m.add_comm("all four", {0, 1, 2, 3});
  for (Rank r = 0; r < 4; ++r) {
    auto& p = m.rank(r);
    p.work(work, r * 1e-3);
    p.collective(MpiFunction::Bcast, all, 1000, 2);  // root 2
    p.work(work, r * 1e-3);
    p.collective(MpiFunction::Reduce, all, 1000, 0);  // root 0
    p.work(work, r * 1e-3);
    p.collective(MpiFunction::Scan, all, 1000);
    p.work(work, (3 - r) * 1e-3);
    p.allreduce(all, 1000);
  }
  const Trace t = m.run(easy());
  const double C = 4e-6;
  const double t0 = 0.001001;
  // Bcast: root leaves at ready_2 + C; ranks 0, 1 wait for the root; rank 3 is later than it.
  const double ready2 = t0 + 2e-3 + 1e-6;
  CHECK(leave(t, 2, "MPI_Bcast") == Approx(ready2 + C).margin(kNs));
  CHECK(leave(t, 0, "MPI_Bcast") == Approx(ready2 + C).margin(kNs));
  CHECK(leave(t, 1, "MPI_Bcast") == Approx(ready2 + C).margin(kNs));
  const double ready3 = t0 + 3e-3 + 1e-6;
  CHECK(leave(t, 3, "MPI_Bcast") == Approx(ready3 + C).margin(kNs));
  // Reduce (root 0): non-roots leave at their ready + C, the root after the last (rank 3).
  double b[4];
  for (Rank r = 0; r < 4; ++r) b[r] = leave(t, r, "MPI_Bcast");
  const double rr3 = b[3] + 3e-3 + 1e-6;
  CHECK(leave(t, 1, "MPI_Reduce") == Approx(b[1] + 1e-3 + 1e-6 + C).margin(kNs));
  CHECK(leave(t, 3, "MPI_Reduce") == Approx(rr3 + C).margin(kNs));
  CHECK(leave(t, 0, "MPI_Reduce") ==
        Approx(std::max({b[0] + 1e-6, b[1] + 1e-3 + 1e-6, b[2] + 2e-3 + 1e-6, rr3}) + C).margin(kNs));
  // Scan: rank i leaves at max(ready_0..i) + C.
  double ready[4];
  for (Rank r = 0; r < 4; ++r) ready[r] = leave(t, r, "MPI_Reduce") + r * 1e-3 + 1e-6;
  double running = 0;
  for (Rank r = 0; r < 4; ++r) {
    running = std::max(running, ready[r]);
    CHECK(leave(t, r, "MPI_Scan") == Approx(running + C).margin(kNs));
  }
  // Allreduce: everybody leaves at the latest ready + C.
  double latest = 0;
  for (Rank r = 0; r < 4; ++r) latest = std::max(latest, leave(t, r, "MPI_Scan") + (3 - r) * 1e-3 + 1e-6);
  for (Rank r = 0; r < 4; ++r) CHECK(leave(t, r, "MPI_Allreduce") == Approx(latest + C).margin(kNs));
  // Score-P's byte convention: Allreduce records n·b sent and received.
  const auto& last = t.ranks[0].collectives[t.ranks[0].collectives.size() - 2];
  CHECK(last.op == CollectiveOp::Allreduce);
  CHECK(last.sent == 4000);
}

TEST_CASE("imbalance generator: static mode on 2 ranks by hand") {
  ImbalanceOptions o;
  o.ranks = 2;
  o.iterations = 2;
  o.mode = "static";
  o.model = easy();
  // Barrier cost C = ceil(log2 2) * L = 1 us. T_balanced = o + init + N (w + o + C) + (o + C)
  //   = 1 us + 1 ms + 2 (50 ms + 2 us) + 2 us = 0.101007 s; e = 25 % · T_b / N = 0.012625875 s.
  const double Tb = 0.101007;
  const double e = 0.25 * Tb / 2;
  CHECK(imbalance_balanced_runtime(o) == Approx(Tb).epsilon(1e-12));
  const Trace t = generate_imbalance(o);
  const double t0 = 0.001001;
  // Rank 0 works w - e, rank 1 works w + e in every iteration.
  CHECK(leave(t, 0, "work", 0) - enter(t, 0, "work", 0) == Approx(0.05 - e).margin(2 * kNs));
  CHECK(leave(t, 1, "work", 0) - enter(t, 1, "work", 0) == Approx(0.05 + e).margin(2 * kNs));
  const double exit1 = t0 + 0.05 + e + 1e-6 + 1e-6;
  CHECK(leave(t, 0, "MPI_Barrier", 0) == Approx(exit1).margin(kNs));
  // Rank 0 waits in the first barrier from t0 + w - e to exit1.
  CHECK(enter(t, 0, "MPI_Barrier", 0) == Approx(t0 + 0.05 - e).margin(kNs));
  // Runtime = 1.25 T_b exactly (up to the 1 ns grid).
  CHECK(t.end_time() == Approx(1.25 * Tb).margin(kNs));
  CHECK(leave(t, 0, "MPI_Finalize") == Approx(1.25 * Tb).margin(kNs));
}

TEST_CASE("imbalance generator: total work is the same in every mode") {
  for (const char* mode : {"balanced", "static", "dynamic", "mixed"}) {
    ImbalanceOptions o;
    o.ranks = 4;
    o.iterations = 8;
    o.mode = mode;
    const Trace t = generate_imbalance(o);
    double total = 0;
    std::vector<double> per_rank(4, 0);
    for (Rank r = 0; r < 4; ++r)
      for (int k = 0; k < 8; ++k) per_rank[r] += leave(t, r, "work", k) - enter(t, r, "work", k);
    for (double x : per_rank) total += x;
    INFO(mode);
    CHECK(total == Approx(4 * 8 * o.work).epsilon(1e-9));
    if (std::string(mode) == "dynamic")  // every rank is overloaded equally often: no profile imbalance
      for (double x : per_rank) CHECK(x == Approx(8 * o.work).epsilon(1e-9));
    if (std::string(mode) != "balanced")
      CHECK(t.end_time() == Approx(1.25 * imbalance_balanced_runtime(o)).epsilon(1e-9));
  }
}

TEST_CASE("wavefront generator: a 2x1 pipeline by hand") {
  WavefrontOptions o;
  o.px = 2;
  o.py = 1;
  o.iterations = 1;
  o.blocks = 1;
  o.work = 1e-3;
  o.bytes = 100;
  o.model = easy();
  const Trace t = generate_wavefront(o);
  const double t0 = 0.001001, w = 1e-3, msg = 1e-6 + 100e-9;
  // Sweep 1 (+x): rank 0 sweeps at t0, sends at t0 + w (ready +1 us); rank 1 receives at
  // arrival = t0 + w + 1 us + msg, sweeps, ...
  CHECK(enter(t, 0, "sweep", 0) == Approx(t0).margin(kNs));
  const double arrive1 = t0 + w + 1e-6 + msg;
  CHECK(leave(t, 1, "MPI_Recv", 0) == Approx(arrive1).margin(kNs));
  CHECK(enter(t, 1, "sweep", 0) == Approx(arrive1).margin(kNs));
  // Sweep 2 (-x) starts at rank 1 right after its sweep-1 work (it sends nothing in +x from x=1).
  CHECK(enter(t, 1, "sweep", 1) == Approx(arrive1 + w).margin(kNs));
  // Rank 0 received rank 1's sweep-2 message at arrive1 + 2w + 1 us + msg.
  CHECK(leave(t, 0, "MPI_Recv", 0) == Approx(arrive1 + 2 * w + 1e-6 + msg).margin(kNs));
  // Four sweeps, one Allreduce; rank 1 sends (x-direction) in sweeps 2 and 4 only.
  int sends = 0;
  for (const Event& e : t.ranks[1].events) sends += e.kind == EventKind::MpiSend;
  CHECK(sends == 2);
}

TEST_CASE("mpmd generator: partitions, CommCreate in MPI_Comm_split, step time by hand") {
  MpmdOptions o;
  o.particle_ranks = 2;
  o.mesh_ranks = 1;
  o.steps = 1;
  o.particle_work = 0.02;  // 10 ms per particle rank
  o.mesh_work = 0.03;      // 30 ms on the mesh rank: the particles wait
  o.bytes = 100;
  o.model = easy();
  const Trace t = generate_mpmd(o);
  REQUIRE(t.defs.comms.size() == 4);
  CHECK(t.defs.comms[2].members == std::vector<Rank>{0, 1});
  bool created = false;
  for (const Event& e : t.ranks[2].events) created |= e.kind == EventKind::CommCreate && e.ref == 3;
  CHECK(created);
  // After MPI_Init (t0) every rank splits: C = ceil(log2 3) * L = 2 us, exit = t0 + 1 us + 2 us.
  const double split = 0.001001 + 3e-6;
  CHECK(leave(t, 0, "MPI_Comm_split") == Approx(split).margin(kNs));
  // Mesh: solve 30 ms, Allreduce on its own 1-rank communicator (C = 0): + 1 us; then it
  // receives deposits that arrived long ago, and sends the field back.
  const double mesh_recv_ready = split + 0.03 + 1e-6 + 1e-6;
  CHECK(leave(t, 2, "MPI_Recv", 0) == Approx(mesh_recv_ready).margin(kNs));
  // Particle 0 waits for the field: mesh sends after 2 receives (+2 us) ... first send ready
  // at mesh_recv_ready + 1 us (second recv) + 1 us (send overhead); arrival + 1.1 us.
  const double field0 = mesh_recv_ready + 1e-6 + 1e-6 + 1e-6 + 100e-9;
  CHECK(leave(t, 0, "MPI_Recv", 0) == Approx(field0).margin(kNs));
}

TEST_CASE("halo generator: neighbours, tags and the overloaded block") {
  HaloOptions o;
  o.dims = {2, 2};
  o.steps = 2;
  o.overload_ranks = {0};
  o.overload = 0.5;
  o.model = easy();
  const Trace t = generate_halo(o);
  // Periodic 2x2: every rank has 4 neighbour messages per step (two per neighbour).
  CHECK(t.messages.size() == 4u * 4u * 2u);
  for (Rank r = 0; r < 4; ++r) {
    const double w = leave(t, r, "compute", 0) - enter(t, r, "compute", 0);
    CHECK(w == Approx(r == 0 ? 0.015 : 0.010).margin(2 * kNs));
  }
  // 16 KiB > E = 1000 bytes: rendezvous. Rank 0 (15 ms of compute) posts 4 Irecvs (1 us each),
  // then Isends to rank 1 (tags 0, 1), rank 1, rank 2, rank 2, ready at +5, +6, +7, +8 us.
  // Rank 1 posted its receives long before, so the second transfer from rank 0 runs from
  // t0 + 15 ms + 6 us for L + 16384 B / B = 17.384 us. Rank 1's own sends to rank 0 end earlier
  // (rank 0's receives are posted at +1 and +2 us), so rank 1's Waitall ends at that arrival.
  const double t0 = 0.001001;
  CHECK(leave(t, 1, "MPI_Waitall", 0) == Approx(t0 + 0.015 + 6e-6 + 17.384e-6).margin(kNs));
  // Balanced variant: the same extra work spread evenly (50 % of 10 ms over 4 ranks).
  o.balanced = true;
  const Trace b = generate_halo(o);
  for (Rank r = 0; r < 4; ++r)
    CHECK(leave(b, r, "compute", 0) - enter(b, r, "compute", 0) == Approx(0.01 * (1 + 0.5 / 4)).margin(2 * kNs));
}

TEST_CASE("phases generator: four phases of the same function") {
  PhasesOptions o;
  o.ranks = 4;
  o.iterations = 2;
  o.work = 1e-3;
  o.big_bytes = 1 << 20;
  o.model = easy();
  const Trace t = generate_phases(o);
  // 8 relax() calls per rank; phase 2 (calls 2, 3) doubles the work of ranks 2 and 3.
  for (Rank r = 0; r < 4; ++r) {
    const double phase2 = leave(t, r, "relax", 2) - enter(t, r, "relax", 2);
    CHECK(phase2 == Approx(r >= 2 ? 2e-3 : 1e-3).margin(2 * kNs));
  }
  // Phase 3 is serialised: rank 3 starts its relax only after ranks 0, 1, 2 did theirs.
  CHECK(enter(t, 3, "relax", 4) > enter(t, 0, "relax", 4) + 3e-3);
  // Phase 4 moves 1 MiB per neighbour: at least L + 1 MiB / B ~ 1.05 ms of transfer per exchange.
  CHECK(leave(t, 1, "MPI_Waitall", 4) - enter(t, 1, "MPI_Waitall", 4) > 1e-3);  // phase 3 has none
}

TEST_CASE("generators are deterministic per seed") {
  const auto times = [](const Trace& t) {
    std::vector<double> out;
    for (const auto& rt : t.ranks)
      for (const Event& e : rt.events) out.push_back(e.time);
    return out;
  };
  ImbalanceOptions o;
  o.ranks = 6;
  o.iterations = 12;
  o.mode = "dynamic";
  o.launch_jitter = 1e-3;
  const auto a = times(generate_imbalance(o));
  CHECK(a == times(generate_imbalance(o)));
  o.seed = 2;
  CHECK(a != times(generate_imbalance(o)));
}

TEST_CASE("a trace of a million events or more is derived with its steps side by side: the same messages and calls") {
  // derive() pairs messages and finds the MPI calls on two threads from 10^6 events on: the
  // counts must be what the halo's structure gives, as on a small trace (one thread).
  HaloOptions o;
  o.dims = {4, 4};
  o.model = easy();
  const auto calls_per_rank = [&](std::uint32_t steps) {
    o.steps = steps;
    return generate_halo(o).ranks[5].mpi_calls.size();
  };
  const std::size_t one = calls_per_rank(1), per_step = calls_per_rank(2) - one;
  o.steps = 1600;
  const Trace t = generate_halo(o);
  std::size_t events = 0;
  for (const RankTrace& rt : t.ranks) events += rt.events.size();
  REQUIRE(events >= 1000000);
  CHECK(t.messages.size() == 16u * 4u * 1600u);  // four neighbours per rank and step
  for (const RankTrace& rt : t.ranks) CHECK(rt.mpi_calls.size() == one + 1599 * per_step);
  bool paired = true;
  for (std::uint32_t m = 0; m < t.messages.size(); ++m) {
    const Message& msg = t.messages[m];
    paired = paired && t.send_of(msg).message == m && t.recv_of(msg).message == m &&
             t.send_of(msg).peer == msg.receiver && t.recv_of(msg).peer == msg.sender;
  }
  CHECK(paired);
}
