// POP factors (paper 003) against values derived from the generators' analytic model and from a
// hand-made trace: whole run, per phase of the `phases` generator, fixed and adaptive windows,
// wait-then-transfer split of MPI calls crossing a window border.
#include <catch2/catch.hpp>

#include <cmath>

#include "hand_trace.hpp"
#include "ideal_network.hpp"
#include "wisp/analysis/pop_windows.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;

namespace {

void check_factors(const PopFactors& f, double lb, double ser, double trf, double eps) {
  CHECK(f.load_balance == Approx(lb).epsilon(eps));
  CHECK(f.serialisation == Approx(ser).epsilon(eps));
  CHECK(f.transfer == Approx(trf).epsilon(eps));
  CHECK(f.parallel_efficiency == Approx(lb * ser * trf).epsilon(eps));
  CHECK(f.communication_efficiency == Approx(ser * trf).epsilon(eps));
}

}  // namespace

TEST_CASE("POP factors of the static imbalance benchmark equal the model's") {
  gen::ImbalanceOptions o;
  o.ranks = 4;
  o.iterations = 20;
  o.mode = "static";
  const gen::ModelParams& m = o.model;
  const Trace t = gen::generate_imbalance(o);
  // Rank r works w + e(2r/(P-1) - 1) per iteration: mean useful N·w, max N(w + e). On an ideal
  // network every barrier waits for the slowest rank and costs nothing: T_ideal = N(w + e) = max
  // useful, so Ser = 1. T = o + I + N(w + e + o + C) + o + C.
  const double e = o.percent / 100 * gen::imbalance_balanced_runtime(o) / o.iterations;
  const double N = o.iterations, w = o.work, C = m.collective(4, 0);
  const double T = m.overhead + m.init_time + N * (w + e + m.overhead + C) + m.overhead + C;
  const PopTimeline tl = pop_timeline(t);
  CHECK(tl.ideal_runtime == Approx(N * (w + e)).epsilon(1e-9));
  const PopFactors f = pop_factors(tl);
  CHECK(f.elapsed == Approx(T).epsilon(1e-9));
  CHECK(f.mean_useful == Approx(N * w).epsilon(1e-9));
  CHECK(f.max_useful == Approx(N * (w + e)).epsilon(1e-9));
  check_factors(f, w / (w + e), 1.0, N * (w + e) / T, 1e-8);

  // An externally supplied ideal runtime (e.g. SimGrid on the ideal platform) replaces the clock
  // replay's for the whole run.
  PopOptions ext;
  ext.ideal_runtime = N * (w + e) * 1.01;
  const PopFactors g = pop_factors(tl, ext);
  CHECK(g.ideal == ext.ideal_runtime);
  CHECK(g.serialisation == Approx(1 / 1.01).epsilon(1e-8));
  CHECK(g.transfer == Approx(N * (w + e) * 1.01 / T).epsilon(1e-8));
  CHECK(g.load_balance == f.load_balance);
}

namespace {

// Iteration lengths of the four phases on P >= 4 ranks (model.hpp rules; see generators.hpp):
//   1: relax w; 2 Irecv + 2 Isend (o each) + Waitall: the last message, from r-1's second Isend
//      entered 3o after relax, arrives o + tr(small) later -> w + 4o + tr_s; Allreduce o + C.
//   2: the same with the upper half relaxing w(1 + imbalance).
//   3: the token: rank r receives at (r-1's send enter) + o + tr(8); rank P-1 relaxes last.
//   4: rendezvous: a rank's second send starts 4o after relax and lasts tr(big).
struct PhaseModel {
  double d[4];
  double start[5];
};

PhaseModel phase_model(const gen::PhasesOptions& o) {
  const gen::ModelParams& m = o.model;
  const double w = o.work, ov = m.overhead, P = o.ranks, C = m.collective(o.ranks, 8);
  PhaseModel pm;
  pm.d[0] = w + 5 * ov + m.transfer(o.small_bytes) + C;
  pm.d[1] = w * (1 + o.imbalance) + 5 * ov + m.transfer(o.small_bytes) + C;
  pm.d[2] = P * w + (P - 1) * (ov + m.transfer(8)) + ov + C;
  pm.d[3] = w + 5 * ov + m.transfer(o.big_bytes) + C;
  pm.start[0] = ov + m.init_time;
  for (int k = 0; k < 4; ++k) pm.start[k + 1] = pm.start[k] + o.iterations * pm.d[k];
  return pm;
}

}  // namespace

TEST_CASE("POP factors of the phases generator: whole run and each phase equal the model's") {
  gen::PhasesOptions o;
  o.ranks = 16;
  o.iterations = 10;
  const gen::ModelParams& m = o.model;
  const Trace t = gen::generate_phases(o);
  const PopTimeline tl = pop_timeline(t);
  const PhaseModel pm = phase_model(o);
  const double w = o.work, N = o.iterations, P = o.ranks, heavy = 1 + o.imbalance;
  const double T = pm.start[4] + m.overhead + m.collective(o.ranks, 0);
  // Ideal network per iteration: w, w·heavy, P·w (the token passes through every rank), w.
  const double ideal = N * (w + w * heavy + P * w + w);
  const double max_useful = N * (3 * w + w * heavy), mean_useful = N * (3 * w + w * (1 + heavy) / 2);
  const PopFactors f = pop_factors(tl);
  CHECK(f.elapsed == Approx(T).epsilon(1e-9));
  CHECK(f.ideal == Approx(ideal).epsilon(1e-9));
  check_factors(f, mean_useful / max_useful, max_useful / ideal, ideal / T, 1e-8);

  // Each phase alone: [end of its first iteration's predecessor, end of its last Allreduce].
  const double lb[4] = {1, (1 + heavy) / 2 / heavy, 1, 1};
  const double ser[4] = {1, 1, 1 / P, 1};
  const double per_iteration_ideal[4] = {w, w * heavy, P * w, w};
  for (int k = 0; k < 4; ++k) {
    INFO("phase " << k + 1 << " from " << pm.start[k] << " to " << pm.start[k + 1]);
    const PopFactors p = pop_factors(tl, pm.start[k], pm.start[k + 1]);
    check_factors(p, lb[k], ser[k], per_iteration_ideal[k] / pm.d[k], 1e-6);
  }
}

TEST_CASE("POP windows of the phases generator show each phase's weakness in its time range") {
  gen::PhasesOptions o;  // 16 ranks, 40 iterations per phase
  const Trace t = gen::generate_phases(o);
  const PopTimeline tl = pop_timeline(t);
  const PhaseModel pm = phase_model(o);
  const double W = 0.1, w = o.work;
  const auto windows = pop_windows(tl, WindowOptions{W, 3});
  int inside[4] = {0, 0, 0, 0};
  for (const PopWindow& win : windows) {
    int phase = -1;
    for (int k = 0; k < 4; ++k)
      if (win.start >= pm.start[k] && win.end <= pm.start[k + 1]) phase = k;
    if (phase < 0) continue;  // straddles a phase border
    ++inside[phase];
    INFO("window [" << win.start << ", " << win.end << "] in phase " << phase + 1);
    const PopFactors& f = win.factors;
    // Bounds from the model, for a window of length W inside one phase (D = iteration length):
    // a rank that computes u per iteration has useful time W·u/D ± u in the window.
    // Phases 1, 2, 4: all ranks start relax together after the Allreduce, so ranks with equal work
    // have equal timers; the ideal clock is that of the most loaded rank: Ser = 1 exactly.
    switch (phase) {
      case 0:  // balanced: LB = 1; Trf = (W·w/D1 ± w)/W
        CHECK(f.load_balance == Approx(1).epsilon(1e-9));
        CHECK(f.serialisation == Approx(1).epsilon(1e-6));
        CHECK(f.transfer >= w / pm.d[0] - w / W);
        break;
      case 1: {  // imbalanced: LB = 1/2 + U_light/(2 U_heavy) with |U_light - U_heavy/2| <= w/2,
                 // U_heavy >= 2w·(floor(W/D2) - 1): LB = 0.75 ± 1/(8(floor(W/D2) - 1))
        const double full = std::floor(W / pm.d[1]) - 1;
        CHECK(std::abs(f.load_balance - 0.75) <= 1 / (8 * full) + 1e-9);
        CHECK(f.serialisation == Approx(1).epsilon(1e-6));
        CHECK(f.transfer >= 2 * w / pm.d[1] - 2 * w / W);
        break;
      }
      case 2:  // serialised: T_ideal ~ W (the token holder computes all the time) while no rank
               // relaxes more than W/D3 + 1 times: Ser <= (W/D3 + 1)·w / (W·P·w/D3 - w)
        CHECK(f.serialisation <= (W / pm.d[2] + 1) * w / (W * o.ranks * w / pm.d[2] - w));
        CHECK(f.serialisation >= (W / pm.d[2] - 1) * w / W);
        CHECK(f.transfer > 0.95);
        break;
      case 3:  // slow transfers: LB = Ser = 1, Trf = (W·w/D4 ± w)/W ~ 0.6
        CHECK(f.load_balance == Approx(1).epsilon(1e-9));
        CHECK(f.serialisation == Approx(1).epsilon(1e-6));
        CHECK(f.transfer >= w / pm.d[3] - w / W);
        CHECK(f.transfer <= w / pm.d[3] + w / W);
        break;
    }
    // The other phases' weaknesses are absent.
    if (phase != 1 && phase != 2) CHECK(f.load_balance > 0.99);
    if (phase != 2) CHECK(f.serialisation > 0.99);
    if (phase != 3) CHECK(f.transfer > 0.89);
    CHECK(win.min_events >= 3);
  }
  CHECK(inside[0] >= 1);
  CHECK(inside[1] >= 3);
  CHECK(inside[2] >= 25);
  CHECK(inside[3] >= 2);
  // Windows tile the run and their ideal-time increases add up to T_ideal.
  double ideal = 0, useful_max_sum = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    if (i > 0) CHECK(windows[i].start == windows[i - 1].end);
    ideal += windows[i].factors.ideal;
    useful_max_sum += windows[i].factors.max_useful;
  }
  CHECK(windows.front().start == tl.start);
  CHECK(windows.back().end == tl.end);
  CHECK(ideal == Approx(tl.ideal_runtime).epsilon(1e-9));
  CHECK(useful_max_sum >= pop_factors(tl).max_useful - 1e-9);
}

namespace {

Trace two_rank_trace() { return test::pop_two_rank_trace(); }

}  // namespace

TEST_CASE("POP windows split an MPI call crossing a border wait-then-transfer") {
  const Trace t = two_rank_trace();
  // Ideal clocks: rank 0 runs 1 s, then its MPI time does not count: the send starts at ideal 3.
  // Rank 1's receive ends at max(1, 3) = 3: the 2 s increase happens during the wait part of the
  // receive (enter 1 until the send starts at 4), nothing during the transfer part (4 to 5).
  const test::IdealNetworkReplay replay = test::ideal_network_replay(t);
  CHECK(replay.runtime == Approx(4.5));
  CHECK(replay.clock_at(1, 3) == Approx(3));  // rank 1's MpiRecv
  const PopTimeline tl = pop_timeline(t);
  CHECK(tl.ideal_at(1, 2.5) == Approx(1 + 1.5 * 2 / 3));
  CHECK(tl.ideal_at(1, 4.5) == Approx(3));
  CHECK(tl.useful_at(1, 4.5) == Approx(1));
  CHECK(tl.useful_at(0, 4.5) == Approx(3));

  // Whole run: useful 4.5 and 2, T_ideal 4.5, T 6.
  check_factors(pop_factors(tl), 3.25 / 4.5, 1, 0.75, 1e-12);

  // Fixed windows of 1.5 s (by hand from the timers above):
  //   [0, 1.5]:   useful 1, 1;    ideal max 4/3 -> 4/3: LB 1,    Ser 3/4, Trf 8/9
  //   [1.5, 3]:   useful 1, 0;    max 4/3 -> 7/3:     LB 1/2,  Ser 1,   Trf 2/3
  //   [3, 4.5]:   useful 1, 0;    max 7/3 -> 3:       LB 1/2,  Ser 3/2, Trf 4/9 (super-elapsed, 003 §3.2)
  //   [4.5, 6]:   useful 1.5, 1;  max 3 -> 4.5:       LB 5/6,  Ser 1,   Trf 1
  const auto windows = pop_windows(tl, WindowOptions{1.5, 0});
  REQUIRE(windows.size() == 4);
  const double lb[] = {1, 0.5, 0.5, 2.5 / 3}, ser[] = {0.75, 1, 1.5, 1}, trf[] = {8.0 / 9, 2.0 / 3, 4.0 / 9, 1};
  for (int i = 0; i < 4; ++i) {
    INFO("window " << i);
    CHECK(windows[i].start == Approx(1.5 * i));
    CHECK(windows[i].end == Approx(1.5 * (i + 1)));
    check_factors(windows[i].factors, lb[i], ser[i], trf[i], 1e-12);
  }
  // Adaptive: MPI events (enters and leaves) are at 1, 2, 4, 4.5 on rank 0 and 1, 5 on rank 1.
  //   N = 1: [0, 1.5) has one each; [1.5, 3) none on rank 1 -> merged up to the end: [1.5, 6].
  //   N = 2, 3: nothing before the end has 2 events of rank 1: one window [0, 6].
  auto adaptive = pop_windows(tl, WindowOptions{1.5, 1});
  REQUIRE(adaptive.size() == 2);
  CHECK(adaptive[0].end == Approx(1.5));
  CHECK(adaptive[1].start == Approx(1.5));
  CHECK(adaptive[1].end == Approx(6));
  CHECK(adaptive[1].min_events == 1);
  for (std::uint32_t n : {2u, 3u}) {
    adaptive = pop_windows(tl, WindowOptions{1.5, n});
    REQUIRE(adaptive.size() == 1);
    check_factors(adaptive[0].factors, 3.25 / 4.5, 1, 0.75, 1e-12);
  }
  CHECK_THROWS_AS(pop_windows(tl, WindowOptions{0, 3}), Error);
  CHECK_THROWS_AS(pop_windows(tl, WindowOptions{1e-9, 3}), Error);
}

TEST_CASE("ideal-network replay: messages above the eager limit make the sender wait") {
  // Rank 0 sends 1 MiB at 1 (its send completes at 3); rank 1 computes until 2, then posts the
  // receive. With the eager limit above 1 MiB the sender goes on at ideal time 1; below, it waits
  // for the post at ideal time 2.
  Definitions d;
  d.ranks.resize(2);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
  for (const char* n : {"main", "MPI_Send", "MPI_Recv"}) d.add_region(make_region(n));
  const auto R = [&](const char* n) { return *d.find_region(n); };
  TraceBuilder b(d);
  b.rank(0).enter(0, R("main"));
  b.rank(0).enter(1, R("MPI_Send"));
  b.rank(0).send(1, 1, d.world, 0, 1 << 20);
  b.rank(0).leave(3, R("MPI_Send"));
  b.rank(0).leave(4, R("main"));
  b.rank(1).enter(0, R("main"));
  b.rank(1).enter(2, R("MPI_Recv"));
  b.rank(1).recv(3, 0, d.world, 0, 1 << 20);
  b.rank(1).leave(3, R("MPI_Recv"));
  b.rank(1).leave(3.5, R("main"));
  const Trace t = b.finish();
  CHECK(test::ideal_network_replay(t, 2 << 20).runtime == Approx(2.5));  // rank 0: 1 + 1; rank 1: 2 + 0.5
  CHECK(test::ideal_network_replay(t, 1024).runtime == Approx(3));       // rank 0: max(1, 2) + 1
}
