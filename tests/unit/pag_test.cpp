// The program activity graph of generated traces: its longest path has the length and the segments
// the analytic model (include/wisp/generate/model.hpp) gives by hand, wait time is excluded, and the
// MBM invariants hold on every generator.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "helpers.hpp"
#include "pag_path.hpp"
#include "reference_cpm.hpp"
#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;
using wisp::test::callpath;

namespace {

constexpr double kNs = 1e-9;

struct Expected {
  Rank rank;
  std::string callpath;
  double start, end;
};

void check_segments(const Trace& t, const std::vector<PathSegment>& got, const std::vector<Expected>& want,
                    double tolerance) {
  std::vector<PathSegment> w;
  for (const auto& e : want) w.push_back(PathSegment{e.rank, callpath(t, e.callpath), e.start, e.end});
  const std::string diff = test::critical_path_difference(got, w, tolerance);
  INFO("segments found:");
  for (const auto& s : got)
    INFO("  rank " << s.rank << " " << (s.callpath < kLaunchCallpath ? t.defs.callpath_name(s.callpath) : "?") << " ["
                   << s.start << ", " << s.end << "]");
  CHECK(diff == "");
}

Ticks ticks(double s) { return std::llround(s * 1e9); }

// Runs PAG + CPM and checks what holds on every trace: the longest path ends at the trace's end and
// every event outside MPI calls and every MPI call's enter and leave is reached exactly at its own
// time (the graph is tight). Events inside a call may be reached earlier: a completion recorded
// while the call still waited for another one (e.g. in MPI_Waitall) does not end a wait.
test::DenseCpm check_tight(const Trace& t, const Pag& pag) {
  const test::DenseCpm cpm = test::dense_cpm(pag.graph);
  CHECK(cpm.length == ticks(t.end_time()) - pag.origin);
  std::size_t early = 0;
  for (Rank r = 0; r < t.rank_count(); ++r) {
    std::vector<bool> inside(t.ranks[r].events.size(), false);
    for (const PagCall& c : pag.calls[r])
      for (EventIndex i = c.enter + 1; i < c.leave; ++i) inside[i] = true;
    for (EventIndex i = 0; i < t.ranks[r].events.size(); ++i) {
      const std::uint32_t v = pag.vertex(r, i);
      if (!inside[i] && cpm.earliest[v] + pag.origin != pag.time[v]) ++early;
      if (cpm.earliest[v] + pag.origin > pag.time[v]) ++early;  // never later than its time
    }
  }
  CHECK(early == 0);
  CHECK(pag.anomalies.receive_before_send == 0);
  CHECK(pag.anomalies.inconsistent_collectives == 0);
  CHECK(pag.anomalies.cycle_activities == 0);
  return cpm;
}

// MBM invariants of paper 001 §5 on the k longest paths of a PAG.
void check_mbm_invariants(const Pag& pag, const test::DenseCpm& cpm, std::size_t k) {
  NearCriticalQuery q;
  q.k = k;
  const NearCriticalPaths p = near_critical_paths(pag.graph, cpm, q);
  REQUIRE(!p.paths.empty());
  CHECK(p.paths[0].duration == cpm.length);
  for (std::size_t j = 1; j < p.paths.size(); ++j) CHECK(p.paths[j].duration <= p.paths[j - 1].duration);
  for (const MbmRow& row : maximum_benefit(pag.graph, cpm, p)) {
    INFO("call path " << row.callpath);
    CHECK(row.mbm_all >= 0);
    CHECK(row.mbm_all <= row.critical_path);
    CHECK(row.mbm_k >= row.mbm_all);
    Ticks previous = std::numeric_limits<Ticks>::max();
    for (std::size_t kk = 1; kk <= p.paths.size(); ++kk) {
      const Ticks m = mbm_k(p, row.callpath, kk);
      CHECK(m <= previous);
      previous = m;
    }
    // Once the k-th path is at least MBM_k shorter than d_cp no further path can lower it:
    // then MBM_k is MBM_all exactly (min over all paths).
    if (cpm.length - p.paths.back().duration >= row.mbm_k) CHECK(row.mbm_k == row.mbm_all);
  }
}

}  // namespace

TEST_CASE("PAG of the imbalance generator: critical path length and segments by hand") {
  gen::ImbalanceOptions o;
  o.ranks = 3;
  o.iterations = 2;
  o.mode = "static";
  o.percent = 20;
  const gen::ModelParams& m = o.model;
  const Trace t = gen::generate_imbalance(o);
  const Pag pag = build_pag(t);
  const test::DenseCpm cpm = check_tight(t, pag);

  // e = percent/100 · T_balanced / N; rank r works w + e·(r - 1) per iteration (P = 3).
  const double e = o.percent / 100 * gen::imbalance_balanced_runtime(o) / o.iterations;
  const double w = o.work, C = m.collective(3, 0), T0 = m.overhead + m.init_time;
  const double H1 = T0 + w + e;  // last (rank 2) enters barrier 1
  const double H2 = H1 + m.overhead + C + w + e;
  const double H3 = H2 + m.overhead + C;  // all enter MPI_Finalize
  const double T = H3 + m.overhead + C;
  CHECK(pag.seconds(cpm.length) == Approx(T).margin(4 * kNs));
  CHECK(T == Approx(m.overhead + m.init_time + 2 * (w + e + m.overhead + C) + m.overhead + C));
  // Backward from rank 0's end (all ranks end together): rank 2 arrives last at both barriers.
  check_segments(t, pag_critical_path(pag, cpm).segments,
                 {{2, "main/MPI_Init", 0, T0},
                  {2, "main/work", T0, H1},
                  {2, "main/MPI_Barrier", H1, H1 + m.overhead + C},
                  {2, "main/work", H1 + m.overhead + C, H2},
                  {0, "main/MPI_Barrier", H2, H2 + m.overhead + C},
                  {0, "main/MPI_Finalize", H3, T}},
                 4 * kNs);
}

TEST_CASE("PAG longest path equals the model runtime for every imbalance mode") {
  for (const char* mode : {"balanced", "static", "dynamic", "mixed"}) {
    INFO(mode);
    gen::ImbalanceOptions o;
    o.ranks = 8;
    o.iterations = 16;
    o.mode = mode;
    const gen::ModelParams& m = o.model;
    const Trace t = gen::generate_imbalance(o);
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = check_tight(t, pag);
    const double e =
        std::string(mode) == "balanced" ? 0 : o.percent / 100 * gen::imbalance_balanced_runtime(o) / o.iterations;
    const double C = m.collective(8, 0);
    const double T = m.overhead + m.init_time + o.iterations * (o.work + e + m.overhead + C) + m.overhead + C;
    CHECK(pag.seconds(cpm.length) == Approx(T).margin(o.iterations * 2 * kNs));
    if (std::string(mode) == "balanced")
      CHECK(pag.seconds(cpm.length) == Approx(gen::imbalance_balanced_runtime(o)).margin(40 * kNs));
    check_mbm_invariants(pag, cpm, 50);
  }
}

TEST_CASE("PAG of a 2x1 wavefront: length and segments by hand; Late Sender wait excluded") {
  gen::WavefrontOptions o;
  o.px = 2;
  o.py = 1;
  o.iterations = 1;
  o.blocks = 1;
  const gen::ModelParams& m = o.model;
  const Trace t = gen::generate_wavefront(o);
  const Pag pag = build_pag(t);
  const test::DenseCpm cpm = check_tight(t, pag);
  // Four sweeps alternate direction: each message is awaited (Late Sender) by the other rank.
  const double w = o.work, ov = m.overhead, tr = m.transfer(o.bytes);
  const double T0 = ov + m.init_time;
  const double a0 = T0 + w;                // rank 0 sends (sweep 1)
  const double b1 = a0 + ov + tr;          // rank 1 receives
  const double c0 = b1 + 2 * w + ov + tr;  // rank 0 receives rank 1's sweep-2 message
  const double d1 = c0 + 2 * w + ov + tr;  // rank 1 receives sweep 3
  const double e0 = d1 + 2 * w + ov + tr;  // rank 0 receives sweep 4
  const double ar = e0 + w;                // rank 0 enters MPI_Allreduce last
  const double fin = ar + ov + m.collective(2, 8);
  const double T = fin + ov + m.collective(2, 0);
  CHECK(pag.seconds(cpm.length) == Approx(T).margin(8 * kNs));
  CHECK(T == Approx(m.init_time + 8 * w + 7 * ov + 4 * tr + 2 * m.latency + 8 / m.bandwidth));
  check_segments(t, pag_critical_path(pag, cpm).segments,
                 {{0, "main/MPI_Init", 0, T0},
                  {0, "main/sweep", T0, a0},
                  {1, "main/MPI_Recv", a0, b1},
                  {1, "main/sweep", b1, b1 + 2 * w},
                  {0, "main/MPI_Recv", b1 + 2 * w, c0},
                  {0, "main/sweep", c0, c0 + 2 * w},
                  {1, "main/MPI_Recv", c0 + 2 * w, d1},
                  {1, "main/sweep", d1, d1 + 2 * w},
                  {0, "main/MPI_Recv", d1 + 2 * w, e0},
                  {0, "main/sweep", e0, ar},
                  {0, "main/MPI_Allreduce", ar, fin},
                  {0, "main/MPI_Finalize", fin, T}},
                 8 * kNs);
  // The receives' local activities hold only their time after the send started (ov + tr), not the
  // Late Sender wait: e.g. rank 1's first MPI_Recv lasts b1 - T0 but contributes ov + tr.
  const CallpathId recv = callpath(t, "main/MPI_Recv");
  Ticks local_recv = 0;
  pag.graph.for_each_activity([&](std::uint32_t, const Activity& a) {
    if (a.callpath == recv && a.kind == ActivityKind::Mpi) local_recv += a.duration;
  });
  CHECK(pag.seconds(local_recv) == Approx(4 * (ov + tr)).margin(16 * kNs));
}

TEST_CASE("PAG of the mpmd, halo and phases generators: length and segments by hand") {
  SECTION("mpmd 1+1 ranks, 1 step") {
    gen::MpmdOptions o;
    o.particle_ranks = 1;
    o.mesh_ranks = 1;
    o.steps = 1;
    o.particle_work = 0.05;
    o.mesh_work = 0.08;
    const gen::ModelParams& m = o.model;
    const Trace t = gen::generate_mpmd(o);
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = check_tight(t, pag);
    // Init, Comm_split (o + L), mesh works 0.08 (+ o for its 1-rank Allreduce), receives the
    // particle deposit (sent earlier), sends the field (o + tr), particle rank enters Finalize last.
    const double tr = m.transfer(o.bytes);
    const double T = m.init_time + 6 * m.overhead + 2 * m.latency + 0.08 + tr;
    CHECK(pag.seconds(cpm.length) == Approx(T).margin(8 * kNs));
    // The mesh rank (1) is the slower partition; its field message is awaited by rank 0.
    const double ov = m.overhead, T0 = ov + m.init_time, S = T0 + ov + m.latency;
    const double X = S + 0.08 + 2 * ov;  // rank 1 enters MPI_Send
    check_segments(t, pag_critical_path(pag, cpm).segments,
                   {{1, "main/MPI_Init", 0, T0},
                    {1, "main/MPI_Comm_split", T0, S},
                    {1, "main/mesh_solve", S, S + 0.08},
                    {1, "main/MPI_Allreduce", S + 0.08, S + 0.08 + ov},
                    {1, "main/MPI_Recv", S + 0.08 + ov, X},
                    {0, "main/MPI_Recv", X, X + ov + tr},
                    {0, "main/MPI_Finalize", X + ov + tr, T}},
                   8 * kNs);
    check_mbm_invariants(pag, cpm, 20);
  }
  SECTION("halo 2x1 with an overloaded rank, 5 steps") {
    gen::HaloOptions o;
    o.dims = {2, 1};
    o.steps = 5;
    o.overload_ranks = {1};
    o.overload = 0.5;
    const gen::ModelParams& m = o.model;
    const Trace t = gen::generate_halo(o);
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = check_tight(t, pag);
    // Per step: rank 1 computes w(1+ov), its 2nd Isend (entered 3o after compute) arrives o + tr
    // later at rank 0, which then does boundary() and enters MPI_Allreduce last.
    const double tr = m.transfer(o.bytes);
    const double step = o.work * 1.5 + 5 * m.overhead + tr + o.boundary_work + m.collective(2, 8);
    const double T = m.overhead + m.init_time + o.steps * step + m.overhead + m.latency;
    CHECK(pag.seconds(cpm.length) == Approx(T).margin(o.steps * 8 * kNs));
    // Per step: rank 1 computes, posts 2 MPI_Irecv and 2 MPI_Isend; its second Isend's message is
    // the last rank 0 waits for (o + tr after it started); rank 0 does boundary() and enters the
    // Allreduce last, whose remaining o + C is on the rank the path continues on (1, then 0 at
    // the end, where both enter MPI_Finalize together and the path stays on rank 0).
    const double ov = m.overhead, w1 = o.work * 1.5, C = m.collective(2, 8);
    std::vector<Expected> want{{1, "main/MPI_Init", 0, ov + m.init_time}};
    for (std::uint32_t k = 0; k < o.steps; ++k) {
      const double s0 = ov + m.init_time + k * step;
      const double wait = s0 + w1 + 3 * ov, done = wait + ov + tr, ar = done + o.boundary_work;
      want.push_back({1, "main/compute", s0, s0 + w1});
      want.push_back({1, "main/MPI_Irecv", s0 + w1, s0 + w1 + 2 * ov});
      want.push_back({1, "main/MPI_Isend", s0 + w1 + 2 * ov, wait});
      want.push_back({0, "main/MPI_Waitall", wait, done});
      want.push_back({0, "main/boundary", done, ar});
      want.push_back({k + 1 < o.steps ? 1u : 0u, "main/MPI_Allreduce", ar, ar + ov + C});
    }
    want.push_back({0, "main/MPI_Finalize", T - ov - m.latency, T});
    check_segments(t, pag_critical_path(pag, cpm).segments, want, o.steps * 8 * kNs);
    check_mbm_invariants(pag, cpm, 100);
  }
  SECTION("phases 2 ranks, 1 iteration per phase") {
    gen::PhasesOptions o;
    o.ranks = 2;
    o.iterations = 1;
    const gen::ModelParams& m = o.model;
    const Trace t = gen::generate_phases(o);
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = check_tight(t, pag);
    const double w = o.work, ov = m.overhead, C = m.collective(2, 8);
    const double small = m.transfer(o.small_bytes), big = m.transfer(o.big_bytes), token = m.transfer(8);
    const double T = ov + m.init_time + (w + 3 * ov + small + C) + (w * (1 + o.imbalance) + 3 * ov + small + C) +
                     (2 * w + 2 * ov + token + C) + (w + 3 * ov + big + C) + ov + m.latency;
    CHECK(pag.seconds(cpm.length) == Approx(T).margin(20 * kNs));
    // Phase 1: both ranks alike (the path stays on rank 1, where it continues); 2: rank 1 relaxes
    // 2w, rank 0 waits for its message; 3: rank 0's token is awaited by rank 1, which relaxes
    // last; 4: both alike, the rendezvous transfer big is MPI_Waitall time (path on rank 0).
    const double T0 = ov + m.init_time, h = w * (1 + o.imbalance);
    const double A1 = T0 + w + 2 * ov + small, T1 = A1 + ov + C;
    const double A2 = T1 + h + 2 * ov + small, T2 = A2 + ov + C;
    const double A3 = T2 + 2 * w + ov + token, T3 = A3 + ov + C;
    const double A4 = T3 + w + 2 * ov + big;
    check_segments(t, pag_critical_path(pag, cpm).segments,
                   {{1, "main/MPI_Init", 0, T0},
                    {1, "main/relax", T0, T0 + w},
                    {1, "main/MPI_Irecv", T0 + w, T0 + w + ov},
                    {1, "main/MPI_Isend", T0 + w + ov, T0 + w + 2 * ov},
                    {1, "main/MPI_Waitall", T0 + w + 2 * ov, A1},
                    {1, "main/MPI_Allreduce", A1, T1},
                    {1, "main/relax", T1, T1 + h},
                    {1, "main/MPI_Irecv", T1 + h, T1 + h + ov},
                    {0, "main/MPI_Waitall", T1 + h + ov, A2},
                    {0, "main/MPI_Allreduce", A2, T2},
                    {0, "main/relax", T2, T2 + w},
                    {1, "main/MPI_Recv", T2 + w, T2 + w + ov + token},
                    {1, "main/relax", T2 + w + ov + token, A3},
                    {0, "main/MPI_Allreduce", A3, T3},
                    {0, "main/relax", T3, T3 + w},
                    {0, "main/MPI_Irecv", T3 + w, T3 + w + ov},
                    {0, "main/MPI_Isend", T3 + w + ov, T3 + w + 2 * ov},
                    {0, "main/MPI_Waitall", T3 + w + 2 * ov, A4},
                    {0, "main/MPI_Allreduce", A4, A4 + ov + C},
                    {0, "main/MPI_Finalize", A4 + ov + C, T}},
                   20 * kNs);
    check_mbm_invariants(pag, cpm, 100);
  }
}

TEST_CASE("PAG stays tight and MBM invariants hold on larger generated traces") {
  gen::WavefrontOptions wf;
  wf.px = 3;
  wf.py = 3;
  wf.iterations = 2;
  wf.extra_ranks = {4};
  wf.extra = 0.5;
  gen::HaloOptions halo;
  halo.dims = {4, 2};
  halo.steps = 10;
  halo.overload_ranks = {3};
  halo.overload = 0.3;
  gen::MpmdOptions mpmd;
  mpmd.particle_ranks = 3;
  mpmd.mesh_ranks = 2;
  mpmd.steps = 5;
  gen::PhasesOptions phases;
  phases.ranks = 6;
  phases.iterations = 3;
  gen::ImbalanceOptions jitter;  // launch jitter: the late rank's launch offset is on the path
  jitter.ranks = 4;
  jitter.iterations = 4;
  jitter.launch_jitter = 0.01;
  const std::vector<std::pair<const char*, Trace>> traces = [&] {
    std::vector<std::pair<const char*, Trace>> v;
    v.emplace_back("wavefront", gen::generate_wavefront(wf));
    v.emplace_back("halo", gen::generate_halo(halo));
    v.emplace_back("mpmd", gen::generate_mpmd(mpmd));
    v.emplace_back("phases", gen::generate_phases(phases));
    v.emplace_back("imbalance with launch jitter", gen::generate_imbalance(jitter));
    return v;
  }();
  for (const auto& [name, t] : traces) {
    INFO(name);
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = check_tight(t, pag);
    // Segments tile the run: from time 0 to the end without gaps.
    const auto cp = pag_critical_path(pag, cpm);
    REQUIRE(!cp.segments.empty());
    double covered = 0;
    for (const auto& s : cp.segments) covered += s.end - s.start;
    CHECK(covered == Approx(t.end_time() - pag.seconds(pag.origin)).margin(1e-9 * cp.segments.size()));
    CHECK(cp.segments.back().end == Approx(t.end_time()).margin(kNs));
    check_mbm_invariants(pag, cpm, 30);
  }
}

TEST_CASE("PAG edges: messages, rendezvous, collectives, and a receive before its send") {
  // Rank 0: Send(big) entered at 1, completes at 5 because rank 1 posts its Recv at 3 (Late Receiver).
  // Rank 1: Recv entered at 3, completes at 5. Then both Barrier: rank 0 enters 6, rank 1 enters 9.
  Definitions d;
  d.ranks.resize(2);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
  for (const char* n : {"main", "MPI_Send", "MPI_Recv", "MPI_Barrier", "work"}) d.add_region(make_region(n));
  const auto R = [&](const char* n) { return *d.find_region(n); };
  TraceBuilder b(d);
  auto& r0 = b.rank(0);
  r0.enter(0, R("main"));
  r0.enter(1, R("MPI_Send"));
  r0.send(1, 1, d.world, 0, 1 << 20);
  r0.leave(5, R("MPI_Send"));
  r0.enter(6, R("MPI_Barrier"));
  r0.collective_begin(6);
  r0.collective_end(10, CollectiveOp::Barrier, d.world, kNone, 0, 0);
  r0.leave(10, R("MPI_Barrier"));
  r0.leave(10, R("main"));
  auto& r1 = b.rank(1);
  r1.enter(0, R("main"));
  r1.enter(0, R("work"));
  r1.leave(3, R("work"));
  r1.enter(3, R("MPI_Recv"));
  r1.recv(5, 0, d.world, 0, 1 << 20);
  r1.leave(5, R("MPI_Recv"));
  r1.enter(5, R("work"));
  r1.leave(9, R("work"));
  r1.enter(9, R("MPI_Barrier"));
  r1.collective_begin(9);
  r1.collective_end(10, CollectiveOp::Barrier, d.world, kNone, 0, 0);
  r1.leave(10, R("MPI_Barrier"));
  r1.leave(10, R("main"));
  const Trace t = b.finish();
  const Pag pag = build_pag(t);
  const test::DenseCpm cpm = check_tight(t, pag);
  // Critical path: rank 1 works 0-3, posts the receive; the send completes through the rendezvous
  // dependency (2 s of transfer after the post, the 2 s Late Receiver wait excluded); rank 1's
  // receive holds 2 s too (the message arrives at 5), then works 5-9, barrier 9-10.
  // Backward from rank 0's end (lowest rank): barrier hub <- rank 1's begin (last).
  int rendezvous = 0, message = 0, collective = 0;
  for (const Activity& a : pag.graph.activities) {  // the explicit ones: every cross-rank dependency
    if (a.kind == ActivityKind::Rendezvous) {
      ++rendezvous;
      CHECK(a.duration == ticks(2));
    }
    if (a.kind == ActivityKind::Message) {
      ++message;
      CHECK(a.duration == ticks(2));  // receive released at 3 (its own enter; send started at 1)
    }
    if (a.kind == ActivityKind::Collective) {
      ++collective;
      CHECK(a.duration == ticks(1));  // 10 - last arrival 9
    }
  }
  CHECK(rendezvous == 1);
  CHECK(message == 1);
  CHECK(collective == 2);
  // Rank 0's MPI_Send local activities: 4 s long, 2 s of Late Receiver wait excluded.
  Ticks send_local = 0;
  pag.graph.for_each_activity([&](std::uint32_t, const Activity& a) {
    if (a.kind == ActivityKind::Mpi && t.defs.region_of(a.callpath).name == "MPI_Send") send_local += a.duration;
  });
  CHECK(send_local == ticks(2));
  check_segments(
      t, pag_critical_path(pag, cpm).segments,
      {{1, "main/work", 0, 3}, {1, "main/MPI_Recv", 3, 5}, {1, "main/work", 5, 9}, {0, "main/MPI_Barrier", 9, 10}},
      kNs);
  // The recv on rank 1 is tight through its local activity (enter 3 + 2 = 5) and so is the message
  // (1 + 2 = 3 < 5: not tight) -- the critical path stays on rank 1.

  // The same trace with the receive completing before the send starts: the message is dropped.
  TraceBuilder b2(d);
  b2.rank(0).enter(0, R("main"));
  b2.rank(0).enter(4, R("MPI_Send"));
  b2.rank(0).send(4, 1, d.world, 0, 8);
  b2.rank(0).leave(4.5, R("MPI_Send"));
  b2.rank(0).leave(5, R("main"));
  b2.rank(1).enter(0, R("main"));
  b2.rank(1).enter(1, R("MPI_Recv"));
  b2.rank(1).recv(2, 0, d.world, 0, 8);
  b2.rank(1).leave(2, R("MPI_Recv"));
  b2.rank(1).leave(3, R("main"));
  const Trace skewed = b2.finish();
  const Pag p2 = build_pag(skewed);
  CHECK(p2.anomalies.receive_before_send == 1);
  CHECK(test::dense_cpm(p2.graph).length == ticks(5));
}

TEST_CASE("PAG of the Score-P ping-pong trace: the longest path is the run") {
  const auto dir = test::real_trace("scorep-ping-pong");
  const Trace t = read_otf2(dir);
  const Pag pag = build_pag(t);
  const test::DenseCpm cpm = test::dense_cpm(pag.graph);
  CHECK(pag.anomalies.receive_before_send == 0);
  CHECK(pag.seconds(cpm.length + pag.origin) == Approx(t.end_time()).margin(1e-9));
  check_mbm_invariants(pag, cpm, 20);

  // Scalasca's critical path (scorep-ping-pong.scalasca.tsv, metric critical_path) runs from the
  // enter of MPI_Init to the enter of MPI_Finalize; clipped to that, the PAG's longest path has
  // the same time per call path and rank.
  const auto cp = test::init_to_finalize(t, pag_critical_path(pag, cpm).segments);
  auto profile = test::path_profile(cp);
  const auto reference = test::real_trace("scorep-ping-pong.scalasca.tsv");
  std::ifstream in(reference);
  std::string line;
  int compared = 0;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string metric, path, rank, value;
    std::getline(row, metric, '\t');
    std::getline(row, path, '\t');
    std::getline(row, rank, '\t');
    std::getline(row, value, '\t');
    if (metric != "critical_path") continue;
    const std::string name = path.substr(path.find('/') + 1);  // strip the program root
    const auto key = std::make_pair(callpath(t, name), static_cast<Rank>(std::stoul(rank)));
    INFO(name << " rank " << rank);
    CHECK(profile[key] == Approx(std::stod(value)).epsilon(1e-9));
    profile.erase(key);
    ++compared;
  }
  CHECK(compared == 9);
  for (const auto& [key, seconds] : profile) {
    INFO("extra on the PAG path: call path " << key.first << " rank " << key.second);
    CHECK(seconds == 0);
  }
}

TEST_CASE("the activity-graph analysis on degenerate and anomalous traces: no crash, anomalies counted") {
  SECTION("a trace without events") {
    Definitions d;
    d.ranks.resize(2);
    d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
    TraceBuilder b(d);
    const Trace t = b.finish();
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = test::dense_cpm(pag.graph);
    CHECK(cpm.length == 0);
    const NearCriticalPaths p = near_critical_paths(pag.graph, cpm, {});
    CHECK(p.paths.empty());
    CHECK(maximum_benefit(pag.graph, cpm, p).empty());
    CHECK(pag_critical_path(pag, cpm).segments.empty());
  }
  SECTION("an unmatched receive and a collective one member never reached") {
    Definitions d;
    d.ranks.resize(2);
    d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
    for (const char* n : {"main", "MPI_Recv", "MPI_Barrier"}) d.add_region(make_region(n));
    const auto R = [&](const char* n) { return *d.find_region(n); };
    TraceBuilder b(d);
    b.rank(0).enter(0, R("main"));
    b.rank(0).enter(1, R("MPI_Recv"));
    b.rank(0).recv(3, 1, d.world, 0, 8);  // nobody sends it
    b.rank(0).leave(3, R("MPI_Recv"));
    b.rank(0).enter(3, R("MPI_Barrier"));
    b.rank(0).collective_begin(3);
    b.rank(0).collective_end(4, CollectiveOp::Barrier, d.world, kNone, 0, 0);
    b.rank(0).leave(4, R("MPI_Barrier"));
    b.rank(0).leave(4, R("main"));
    b.rank(1).enter(0, R("main"));
    b.rank(1).leave(2, R("main"));
    const Trace t = b.finish();
    REQUIRE(t.anomalies[AnomalyKind::UnmatchedReceive].count == 1);
    REQUIRE(t.anomalies[AnomalyKind::IncompleteCollective].count == 1);
    const Pag pag = build_pag(t);
    const test::DenseCpm cpm = check_tight(t, pag);  // both calls stay local: the run is rank 0's 4 s
    CHECK(cpm.length == ticks(4));
  }
  SECTION("a member leaving a barrier before the last one enters (clock skew)") {
    Definitions d;
    d.ranks.resize(2);
    d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
    for (const char* n : {"main", "MPI_Barrier"}) d.add_region(make_region(n));
    const auto R = [&](const char* n) { return *d.find_region(n); };
    TraceBuilder b(d);
    for (Rank r = 0; r < 2; ++r) {
      const double enter = r == 0 ? 1 : 5, leave = r == 0 ? 2 : 6;
      b.rank(r).enter(0, R("main"));
      b.rank(r).enter(enter, R("MPI_Barrier"));
      b.rank(r).collective_begin(enter);
      b.rank(r).collective_end(leave, CollectiveOp::Barrier, d.world, kNone, 0, 0);
      b.rank(r).leave(leave, R("MPI_Barrier"));
      b.rank(r).leave(leave, R("main"));
    }
    const Trace t = b.finish();
    const Pag pag = build_pag(t);
    CHECK(pag.anomalies.inconsistent_collectives == 1);
    CHECK(test::dense_cpm(pag.graph).length == ticks(6));
  }
}
