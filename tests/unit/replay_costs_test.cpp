// Trace-anchored costs (residuals.hpp): hand-computed residuals on tiny traces, generators that
// stay exact, platform and compute changes acting through the model, a trace whose receive ends
// before its send (the model is used, counted, no negative time), and the identity replay of every
// real trace in tests/data against its measured runtime and wait states.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "hand_trace.hpp"
#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/analysis/call_index.hpp"
#include "wisp/analysis/wait_states.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/replay/trust.hpp"
#include "wisp/scenario/transform.hpp"

using namespace wisp;
using namespace wisp::test;

namespace {

// Rank 0: MPI_Send of 500 bytes traced 1000..1100 us, then work until 2000. Rank 1: MPI_Recv
// traced recv_at..recv_at+100, then 900 us of work.
Trace send_recv(double recv_at) {
  TinyTrace t(2);
  t.call(0, "MPI_Send", 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, 500); });
  t.work(0, "after", 1100, 2000);
  t.call(1, "MPI_Recv", recv_at, recv_at + 100,
         [&](RankBuilder& b) { b.recv(us(recv_at + 100), 0, t.world(), 5, 500); });
  t.work(1, "after", recv_at + 100, recv_at + 1000);
  return t.finish(std::max(recv_at + 1000, 2000.0));
}

ReplayOptions anchored() {
  ReplayOptions o;
  o.anchor = true;
  return o;
}

ReplayOptions with(std::shared_ptr<const CallResiduals> residuals) {
  ReplayOptions o;
  o.residuals = std::move(residuals);
  return o;
}

bool times_never_go_back(const Trace& t) {
  for (const RankTrace& rt : t.ranks)
    for (std::size_t i = 1; i < rt.events.size(); ++i)
      if (rt.events[i].time < rt.events[i - 1].time) return false;
  return true;
}

}  // namespace

// Platform: L = 10 us, 1 ns per byte, o = 1 us, eager up to 1000 bytes. The send is ready at 1001 and
// the eager message arrives at 1011.5.
TEST_CASE("an anchored replay keeps every call's traced end and records what the model leaves", "[replay][costs]") {
  const Trace measured = send_recv(3000);
  const ReplayResult id = replay(measured, tiny_platform(2, 1, 1000), anchored());
  REQUIRE(id.residuals);
  CHECK(id.residuals->by_rank[0][0] * 1e6 == Approx(99));  // model: leave at 1001; traced 1100
  CHECK(id.residuals->by_rank[1][0] * 1e6 == Approx(99));  // model: leave at 3001; traced 3100
  CHECK(call_leave(id.trace, 0, 0) == Approx(1100));
  CHECK(call_leave(id.trace, 1, 0) == Approx(3100));
  CHECK(id.runtime == Approx(measured.end_time()));
  const ResidualSummary s = summarize(measured, *id.residuals);
  CHECK(s.by_class[static_cast<int>(CallClass::PointToPoint)].calls == 2);
  CHECK(s.total().residual * 1e6 == Approx(198));
  CHECK(s.total().model_slower == 0);
}

TEST_CASE("residuals follow their call: the waiting is re-derived, the residual comes after it", "[replay][costs]") {
  const ReplayResult id = replay(send_recv(3000), tiny_platform(2, 1, 1000), anchored());
  const Trace early = send_recv(500);  // the receiver now comes first and waits for the message
  const ReplayResult r = replay(early, tiny_platform(2, 1, 1000), with(id.residuals));
  CHECK(call_leave(r.trace, 0, 0) == Approx(1100));         // 1001 + 99
  CHECK(call_leave(r.trace, 1, 0) == Approx(1011.5 + 99));  // arrival + its residual
  CHECK(r.runtime * 1e6 == Approx(1110.5 + 900 + 500));     // work, then main until its traced end (2000)
  // The platform part still acts: latency x3 delays the arrival by 20 us.
  Platform slow = tiny_platform(2, 1, 1000);
  slow.latency_factor = 3;
  CHECK(call_leave(replay(early, slow, with(id.residuals)).trace, 1, 0) == Approx(1031.5 + 99));
  // Model only: no residual at all.
  CHECK(call_leave(replay(early, tiny_platform(2, 1, 1000)).trace, 1, 0) == Approx(1011.5));
  // Zero communication drops residuals with every other MPI cost.
  ReplayOptions zero = with(id.residuals);
  zero.zero_communication = true;
  CHECK(call_leave(replay(early, tiny_platform(2, 1, 1000), zero).trace, 0, 0) == Approx(1001));
}

TEST_CASE("residuals of another trace's calls are refused", "[replay][costs]") {
  const ReplayResult id = replay(send_recv(3000), tiny_platform(2, 1, 1000), anchored());
  TinyTrace t(2);
  t.work(0, "w", 0, 10);
  const Trace other = t.finish(10);
  CHECK_THROWS_WITH(replay(other, tiny_platform(2, 1, 1000), with(id.residuals)),
                    Catch::Contains("residuals were derived for a trace with other MPI calls"));
  ReplayOptions both = anchored();
  both.residuals = id.residuals;
  CHECK_THROWS_WITH(replay(send_recv(3000), tiny_platform(2, 1, 1000), both), Catch::Contains("cannot also"));
}

TEST_CASE(
    "a receive that ends before its send started uses the model, is counted, never goes back in time, and the rank "
    "catches up",
    "[replay][costs]") {
  // Clock skew: the receive is traced 900..950 us, its message sent at 1000 us.
  TinyTrace t(2);
  t.call(0, "MPI_Send", 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, 500); });
  t.call(1, "MPI_Recv", 900, 950, [&](RankBuilder& b) { b.recv(us(950), 0, t.world(), 5, 500); });
  t.work(1, "after", 950, 1950);
  const Trace skewed = t.finish(2000);
  const ReplayResult id = replay(skewed, tiny_platform(2, 1, 1000), anchored());
  CHECK(times_never_go_back(id.trace));
  const ResidualClass all = summarize(skewed, *id.residuals).total();
  CHECK(all.model_slower + all.unmatched == 1);
  CHECK(id.residuals->by_rank[1][0] <= 0);
  // The receive keeps the model's time: it ends when the message arrives (1011.5 us).
  if (all.model_slower == 1) CHECK(call_leave(id.trace, 1, 0) == Approx(1011.5));
  CHECK_THAT(residual_text(summarize(skewed, *id.residuals)), Catch::Contains("use the model"));
  // The 61.5 us the model ran over come out of the next computation: "after" ends as traced.
  const auto& traced = skewed.ranks[1].events;
  std::size_t after_leave = 0;
  while (after_leave < traced.size() && traced[after_leave].time * 1e6 < 1949.5) ++after_leave;
  REQUIRE(after_leave < traced.size());
  CHECK(id.trace.ranks[1].events[after_leave].time * 1e6 == Approx(1950).margin(1e-6));
  // A replay given these residuals catches up the same way.
  const ReplayResult again = replay(skewed, tiny_platform(2, 1, 1000), with(id.residuals));
  CHECK(again.trace.ranks[1].events[after_leave].time * 1e6 == Approx(1950).margin(1e-6));
}

TEST_CASE("generators stay exact: their residuals are zero and the anchored replay is the model's",
          "[replay][costs][model]") {
  gen::HaloOptions o;
  o.dims = {3, 2, 2};
  o.steps = 10;
  o.overload_ranks = {5};
  o.overload = 0.3;
  const Trace halo = gen::generate_halo(o);
  const Platform p = contention_free_crossbar(halo.rank_count(), o.model.latency, o.model.bandwidth, o.model.overhead,
                                              o.model.eager_limit);
  ReplayOptions a = anchored();
  a.algorithms.set_all(CollectiveAlgorithm::Analytic);
  const ReplayResult id = replay(halo, p, a);
  for (const auto& rank : id.residuals->by_rank)
    for (double v : rank) REQUIRE(v == 0);
  double worst = 0;
  for (Rank r = 0; r < halo.rank_count(); ++r)
    for (std::size_t i = 0; i < halo.ranks[r].events.size(); ++i)
      worst = std::max(worst, std::abs(halo.ranks[r].events[i].time - id.trace.ranks[r].events[i].time));
  CHECK(worst < 1e-9);

  // Bandwidth / 4 through the platform, with the (zero) residuals: the model's run at B / 4.
  gen::HaloOptions slow = o;
  slow.model.bandwidth /= 4;
  Platform quarter = p;
  quarter.bandwidth_factor = 0.25;
  ReplayOptions r = with(id.residuals);
  r.algorithms = a.algorithms;
  CHECK(replay(halo, quarter, r).runtime == Approx(gen::generate_halo(slow).end_time()).epsilon(1e-9));
}

TEST_CASE("model-only calibration adds typical call costs that survive the platform's XML form",
          "[replay][costs][calibrate]") {
  // Two eager sends on rank 0 (100 and 300 us), both received late by rank 1 (100 us each). The
  // minima model charges every send the fastest one (100 us): the residuals are 0 and 200 us, so
  // the typical cost of rank 0's MPI_Send of 500 bytes is their mean, 100 us.
  TinyTrace t(2);
  t.call(0, "MPI_Send", 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, 500); });
  t.work(0, "w", 1100, 3000);
  t.call(0, "MPI_Send", 3000, 3300, [&](RankBuilder& b) { b.send(us(3000), 1, t.world(), 5, 500); });
  t.work(0, "w", 3300, 4000);
  t.call(1, "MPI_Recv", 5000, 5100, [&](RankBuilder& b) { b.recv(us(5100), 0, t.world(), 5, 500); });
  t.call(1, "MPI_Recv", 6000, 6100, [&](RankBuilder& b) { b.recv(us(6100), 0, t.world(), 5, 500); });
  const Trace measured = t.finish(7000);
  Calibration c = calibrate(measured);
  calibrate_call_costs(measured, c);
  REQUIRE(c.call_costs.size() == 1);
  CHECK(c.call_costs[0].function == "MPI_Send");
  CHECK(c.call_costs[0].rank == 0);
  CHECK(c.call_costs[0].calls == 2);
  CHECK(c.call_costs[0].mean * 1e6 == Approx(100));
  CHECK(c.call_costs[0].max * 1e6 == Approx(200));
  const ReplayResult model = replay(measured, c.platform, ReplayOptions{});
  CHECK(call_leave(model.trace, 0, 0) == Approx(1200));  // 100 us overhead + 100 us typical cost
  CHECK(call_leave(model.trace, 0, 1) == Approx(3300));  // entered at 3100
  CHECK(model.runtime == Approx(measured.end_time()));
  CHECK_THAT(calibration_text(c), Catch::Contains("typical call costs"));
  // Anchored replays use each call's own residual, not the typical cost.
  CHECK(call_leave(replay(measured, c.platform, anchored()).trace, 0, 0) == Approx(1100));

  TempDir dir;
  const auto file = dir / "p.xml";
  std::ofstream(file) << platform_xml(c.platform);
  CHECK(load_platform(file).mpi.call_costs == c.platform.mpi.call_costs);
  std::ofstream(file) << "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
                         "<prop id=\"wisp:call-costs:node-0:MPI_Send\" value=\"3:-1e-6\"/></zone></platform>\n";
  CHECK_THROWS_WITH(load_platform(file), Catch::Contains("line 2") && Catch::Contains("non-negative"));
}

TEST_CASE("the identity-error warning: one line above 5 %, naming what to try", "[replay][costs]") {
  CHECK(identity_warning(0.049, nullptr).empty());
  const std::string model = identity_warning(-0.2, nullptr);
  CHECK(model.find('\n') == std::string::npos);
  CHECK_THAT(model, Catch::Contains("-20.0 %") && Catch::Contains("costs anchored"));
  ResidualSummary s;
  s.by_class[0].model_slower = 3;
  CHECK_THAT(identity_warning(0.07, &s), Catch::Contains("3 call(s) use the model"));
}

// A 2-rank MPI_Allreduce whose early member leaves 8 us after the late one entered while the late
// one takes 10 us (as on the real hybrid Jacobi, where the reduction's last step runs on the late
// rank): the calibration fits the wait-free part (8 us, the early member's), not the fastest whole
// call (10 us), so the anchored identity keeps the early rank's leave and its next send on time.
TEST_CASE("calibrated collectives cost their wait-free part: no member overruns its trace", "[replay][costs]") {
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 0.5);
    h.work(r, 0.5, r == 0 ? 1.0 : 1.5, "work");
  }
  h.collective(0, 1.0, 1.5 + 8e-6, "MPI_Allreduce", h.world());
  h.collective(1, 1.5, 1.5 + 10e-6, "MPI_Allreduce", h.world());
  h.send(0, 1.5 + 8e-6, 1.5 + 12e-6, 1);  // no computation between: nothing to catch up in
  h.recv(1, 1.5 + 10e-6, 1.5 + 20e-6, 0);
  for (Rank r = 0; r < 2; ++r) {
    h.finalize(r, 2.0, 2.1);
    h.leave(r, 2.2, "main");
  }
  const Trace measured = h.finish();
  const Calibration c = calibrate(measured);
  INFO(calibration_text(c));
  const auto allreduce = std::find_if(c.points.begin(), c.points.end(),
                                      [](const CalibrationPoint& p) { return p.function == "MPI_Allreduce"; });
  REQUIRE(allreduce != c.points.end());
  CHECK(allreduce->measured * 1e6 == Approx(8).margin(1e-6));
  ReplayOptions o = anchored();
  o.algorithms = c.algorithms;
  const ReplayResult id = replay(measured, c.platform, o);
  const auto enter_of = [](const Trace& t, Rank r, const char* name) {
    for (const Event& e : t.ranks[r].events)
      if (e.kind == EventKind::Enter && t.defs.regions[t.defs.callpaths[e.ref].region].name == name) return e.time;
    return -1.0;
  };
  CHECK(enter_of(id.trace, 0, "MPI_Send") == Approx(enter_of(measured, 0, "MPI_Send")).margin(1e-9));
  CHECK(id.residuals->by_rank[0][1] >= 0);  // Init is call 0; the Allreduce did not overrun
  const WaitStates a = find_wait_states(measured, index_mpi_calls(measured));
  const WaitStates b = find_wait_states(id.trace, index_mpi_calls(id.trace));
  CHECK(b.seconds[static_cast<int>(WaitKind::LateSender)].sum() ==
        Approx(a.seconds[static_cast<int>(WaitKind::LateSender)].sum()).margin(1e-9));
}

// Real traces: the anchored identity reproduces the runtime within 0.1 % and every wait-state kind
// within 2 % (L1 over call path and rank; kinds with less than 1 ms of waiting in total, at the
// traces' clock-skew scale of microseconds, within 10 us instead).
TEST_CASE("anchored identity of every real trace: runtime and wait states of the measured run",
          "[replay][costs][real]") {
  const char* names[] = {"apps/sweep3d_50c_6r",
                         "apps/cloverleaf_bm_short_4r",
                         "apps/minife_100c_imb20_4r",
                         "apps/cloverleaf_2r",
                         "whatif/imb8_barrier/static",
                         "whatif/imb8_barrier/mixed",
                         "other-writers/sstmacro-otf2_test_traces",
                         "other-writers/casita-10_scorep_mpi_tags",
                         "other-writers/casita-2_jacobi_blame_cpu_015",
                         "other-writers/casita-2_cuda_simple",
                         "scorep-ping-pong",
                         "scorep-ping-pong-papi"};
  for (const char* name : names) {
    const auto dir = real_trace(name);
    const Trace measured = read_otf2(dir);
    const Calibration c = calibrate(measured);
    ReplayOptions o = anchored();
    o.algorithms = c.algorithms;
    const ReplayResult id = replay(measured, c.platform, o);
    INFO(name);
    CHECK(std::abs(identity_error(measured.end_time(), id.runtime)) < 1e-3);
    const WaitStates a = find_wait_states(measured, index_mpi_calls(measured));
    const WaitStates b = find_wait_states(id.trace, index_mpi_calls(id.trace));
    for (WaitKind k : {WaitKind::LateSender, WaitKind::LateReceiver, WaitKind::WaitNxN, WaitKind::WaitBarrier}) {
      const double total = a.seconds[static_cast<int>(k)].sum();
      const double error = wait_state_error(a, b, k);
      INFO(metric_name(k) << ": measured " << total << " s, L1 error " << error * 100 << " %");
      if (total >= 1e-3)
        CHECK(error <= 0.02);
      else
        CHECK(error * total <= 10e-6);
    }
  }
}

// The what-if oracle: `rebalance work` on the imbalanced runs predicts the measured balanced run.
TEST_CASE("rebalance work on the real imbalance benchmark predicts its measured balanced run",
          "[replay][costs][real]") {
  const auto balanced_dir = real_trace("whatif/imb8_barrier/balanced");
  const double balanced = read_otf2(balanced_dir).end_time();
  Transform rebalance;
  rebalance.kind = TransformKind::Rebalance;
  rebalance.select.region = "work";
  for (const char* mode : {"static", "dynamic", "mixed"}) {
    const Trace measured = read_otf2(real_trace(std::string("whatif/imb8_barrier/") + mode));
    const Calibration c = calibrate(measured);
    ReplayOptions o = anchored();
    o.algorithms = c.algorithms;
    const ReplayResult id = replay(measured, c.platform, o);
    ReplayOptions s = with(id.residuals);
    s.algorithms = c.algorithms;
    const double predicted = replay(apply_transforms(measured, {rebalance}).trace, c.platform, s).runtime;
    const double gain = id.runtime - predicted, measured_gain = measured.end_time() - balanced;
    INFO(mode << ": predicted " << predicted << " s vs balanced " << balanced << " s; gain " << gain << " s vs "
              << measured_gain << " s");
    CHECK(std::abs(predicted - balanced) / balanced <= 0.02);
    CHECK(std::abs(gain - measured_gain) / measured_gain <= 0.10);
  }
}
