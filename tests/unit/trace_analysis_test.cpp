// analyze_trace(), everything `wisp analyze` computes: the minimum-based wait estimate is set
// against the wait-path analysis's wait states per call path and rank and as wait ratios (paper 002 Fig. 3),
// with the values derived from the halo generator's model; the POP windows the options choose.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "helpers.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/driver/analysis_runner.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/report/trace_analysis_report.hpp"

using namespace wisp;
using wisp::test::callpath;

namespace {

const WaitEstimateRow& row_of(const WaitEstimate& w, CallpathId cp, Rank r) {
  for (const auto& row : w.rows)
    if (row.rank == r && row.callpath == cp) return row;
  FAIL("no row for call path " << cp << " rank " << r);
  return w.rows.front();
}

}  // namespace

TEST_CASE("wait estimate vs the wait-path analysis's wait states on the halo generator, by the model",
          "[trace_analysis][waits]") {
  gen::HaloOptions o;  // 4x4 periodic, eager 16 KiB messages, rank 5 computes 1.5 w
  o.steps = 10;
  o.overload_ranks = {5};
  o.overload = 0.5;
  const gen::ModelParams& m = o.model;
  const Trace t = gen::generate_halo(o);
  const TraceAnalysis a = analyze_trace(t);
  const CallpathId waitall = callpath(t, "main/MPI_Waitall"), allreduce = callpath(t, "main/MPI_Allreduce");
  const double N = o.steps, w = o.work, ov = m.overhead, tr = m.transfer(o.bytes);
  const double tol = N * 4e-9;  // event times are rounded to 1 ns

  // Every step starts on all ranks together (after the Allreduce). Rank r posts 4 MPI_Irecv and
  // then 4 MPI_Isend (the k-th to its k-th neighbour: -x, +x, -y, +y) and enters MPI_Waitall 8o
  // after its compute; rank 5 computes w/2 longer. Its k-th Isend is entered at 1.5w + (4 + k)o,
  // so its k-th neighbour waits in MPI_Waitall (Late Sender) 0.5w + (k - 4)o per step, and gets
  // the message o + tr later: it leaves MPI_Waitall at 1.5w + (5 + k)o + tr. Every other rank leaves
  // at w + 8o + tr (its last message: a neighbour's 4th Isend, tr > o), rank 5 at 1.5w + 9o.
  // After boundary() they enter MPI_Allreduce; the last is rank 5's 4th neighbour (k = 3), so the
  // Wait at N x N per step is 0.5w elsewhere, tr - o on rank 5 and (3 - k)o on neighbour k.
  const std::vector<Rank> hot = {4, 6, 1, 9};  // rank 5's neighbours, k = 0..3
  for (Rank r = 0; r < 16; ++r) {
    INFO("rank " << r);
    const auto k = static_cast<double>(std::find(hot.begin(), hot.end(), r) - hot.begin());
    const bool neighbour = k < 4;
    const double late_sender = neighbour ? N * (0.5 * w + (k - 4) * ov) : 0.0;
    const double nxn = r == 5 ? N * (tr - ov) : neighbour ? N * (3 - k) * ov : N * 0.5 * w;
    const WaitEstimateRow& wa = row_of(*a.waits, waitall, r);
    REQUIRE(wa.trace_based);
    CHECK(*wa.trace_based == Approx(late_sender).margin(tol));
    CHECK(*wa.trace_based == a.wait_paths.waits.seconds[int(WaitKind::LateSender)].at(slot_of(waitall), r));
    // Each rank waits the same in every step: the local minimum hides it (002 §4.1.1).
    CHECK(wa.estimated == Approx(0).margin(tol));
    const WaitEstimateRow& ar = row_of(*a.waits, allreduce, r);
    REQUIRE(ar.trace_based);
    CHECK(*ar.trace_based == Approx(nxn).margin(tol));
    CHECK(*ar.trace_based == a.wait_paths.waits.seconds[int(WaitKind::WaitNxN)].at(slot_of(allreduce), r));
    // The last rank never waits: the global minimum is the pure collective, the estimate exact.
    CHECK(ar.estimated == Approx(nxn).margin(tol));
  }

  // Wait ratios (002 §4.1): per call path over the allocation time P·T.
  const double allocation = 16 * t.end_time();
  CHECK(a.waits->allocation_time == Approx(allocation));
  const double nxn_total = N * (11 * 0.5 * w + (tr - ov) + 6 * ov);
  const double ls_total = N * (4 * 0.5 * w - 10 * ov);
  bool seen_allreduce = false, seen_waitall = false;
  for (const WaitRatio& ratio : wait_ratios(*a.waits)) {
    REQUIRE(ratio.trace_based);
    if (ratio.callpath == allreduce) {
      seen_allreduce = true;
      CHECK(ratio.pattern == WaitPattern::WaitAtNxN);
      CHECK(*ratio.trace_based == Approx(nxn_total / allocation).margin(16 * tol / allocation));
      CHECK(ratio.estimated == Approx(nxn_total / allocation).margin(16 * tol / allocation));
    }
    if (ratio.callpath == waitall) {
      seen_waitall = true;
      CHECK(ratio.pattern == WaitPattern::LateSender);
      CHECK(*ratio.trace_based == Approx(ls_total / allocation).margin(16 * tol / allocation));
      CHECK(ratio.estimated == Approx(0).margin(16 * tol / allocation));
    }
  }
  CHECK(seen_allreduce);
  CHECK(seen_waitall);
}

TEST_CASE("trace_based_waits: the pattern of each call path's function, zero included", "[trace_analysis][waits]") {
  gen::WavefrontOptions o;  // blocking MPI_Recv from upstream: Late Sender
  o.px = 2;
  o.py = 2;
  o.iterations = 2;
  const Trace t = gen::generate_wavefront(o);
  const WaitPathAnalysis a1 = analyze_wait_paths(t);
  const TraceBasedWaits tb = trace_based_waits(t, a1.waits);
  const CallpathId recv = callpath(t, "main/MPI_Recv");
  for (Rank r = 0; r < 4; ++r) {
    REQUIRE(tb.count({recv, r}) == 1);
    CHECK(tb.at({recv, r}) == a1.waits.seconds[int(WaitKind::LateSender)].at(slot_of(recv), r));
  }
  double ls = 0;
  for (Rank r = 0; r < 4; ++r) ls += tb.at({recv, r});
  CHECK(ls > 0);
  for (const auto& [key, value] : tb) CHECK(wait_pattern_of(t.defs.region_of(key.first).mpi).has_value());
}

TEST_CASE("POP windows as wisp analyze chooses them", "[trace_analysis][pop]") {
  const auto adaptive = resolve_windows({}, 2.0);
  REQUIRE(adaptive);
  CHECK(adaptive->length == Approx(0.02));  // 1/100 of the run
  CHECK(adaptive->min_events == 3);
  const auto min5 = resolve_windows({std::nullopt, 5u}, 2.0);
  CHECK(min5->length == Approx(0.02));
  CHECK(min5->min_events == 5);
  const auto fixed = resolve_windows({0.25, std::nullopt}, 2.0);
  CHECK(fixed->length == 0.25);
  CHECK(fixed->min_events == 0);
  const auto merged = resolve_windows({0.25, 4u}, 2.0);
  CHECK(merged->length == 0.25);
  CHECK(merged->min_events == 4);
  CHECK_FALSE(resolve_windows({}, 0.0));

  // On a trace: the default adaptive windows cover the run, each with >= 3 MPI events per rank.
  gen::PhasesOptions o;
  o.ranks = 4;
  o.iterations = 5;
  const Trace t = gen::generate_phases(o);
  const TraceAnalysis a = analyze_trace(t);
  REQUIRE(a.pop->window_options);
  CHECK(a.pop->window_options->min_events == 3);
  REQUIRE(!a.pop->windows.empty());
  CHECK(a.pop->windows.front().start == Approx(0));
  CHECK(a.pop->windows.back().end == Approx(t.end_time()));
  for (std::size_t i = 0; i < a.pop->windows.size(); ++i) {
    CHECK(a.pop->windows[i].min_events >= 3);
    if (i > 0) CHECK(a.pop->windows[i].start == a.pop->windows[i - 1].end);
  }
}

TEST_CASE("analyze_trace one step after another and on the driver's runner of two cores: the same analysis",
          "[trace_analysis]") {
  // The wait-path analysis beside the PAG build, POP's clock replay beside the MBM.
  gen::HaloOptions o;
  o.dims = {4, 2};
  o.steps = 30;
  o.bytes = 131072;
  o.overload_ranks = {3};
  o.overload = 0.5;
  const Trace t = gen::generate_halo(o);
  driver::AnalysisRunner one(1), two(2);
  const TraceAnalysis serial = analyze_trace(t), a = analyze_trace(t, {}, one), b = analyze_trace(t, {}, two);
  REQUIRE((a.pag && b.pag && a.pop && b.pop && a.waits && b.waits));
  CHECK(b.pag->pag.graph.vertex_count == 0);  // a working structure, not a result
  CHECK(b.pag->pag.calls.empty());
  CHECK(b.pag->mbm.size() == a.pag->mbm.size());
  CHECK(trace_analysis_json(t, "halo", serial, true) == trace_analysis_json(t, "halo", a, true));
  CHECK(trace_analysis_json(t, "halo", a, true) == trace_analysis_json(t, "halo", b, true));
  // Every step timed once, whichever ended first.
  auto steps = [](const driver::AnalysisRunner& r) {
    std::vector<std::string> names;
    for (const auto& [name, seconds] : r.timings()) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
  };
  CHECK(steps(one) == steps(two));
  CHECK(steps(one).size() == 8);
}

TEST_CASE("analyze_trace holds the parts asked for, and only those", "[trace_analysis]") {
  gen::HaloOptions o;
  o.dims = {2, 2};
  o.steps = 5;
  const Trace t = gen::generate_halo(o);
  TraceAnalysisOptions options;
  options.parts = analysis_parts({"wait_states", "pop"});
  const TraceAnalysis a = analyze_trace(t, options);
  CHECK_FALSE(a.pag);
  CHECK_FALSE(a.waits);
  REQUIRE(a.pop);
  CHECK(a.pop->whole.elapsed == Approx(t.span()));
  CHECK_FALSE(a.parts().pag);
  CHECK(a.parts().pop);
  const auto j = trace_analysis_json(t, "halo", a);
  CHECK_FALSE(j.contains("pag"));
  CHECK_FALSE(j.contains("wait_estimate"));
  CHECK(j.contains("pop"));
}
