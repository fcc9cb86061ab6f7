// The longest path of the program activity graph (the activity-graph analysis) against the critical path of the
// backward replay (the wait-path analysis) on every generator: the same segments (rank, call path, start,
// end) over the extent both define alike, and lengths that differ exactly by the extents each
// convention adds, derived from the trace's own events.
//
// Extents: the wait-path analysis follows Scalasca, its path runs from the Enter of MPI_Init on the rank it
// starts on to the Enter of MPI_Finalize on the rank that entered it last, and the whole of MPI_Init
// is on it (MPI_Init has no wait-state pattern). The PAG's longest path is the whole run, from the
// trace's first event to its last, with the waiting time of *every* MPI call excluded, MPI_Init's
// included: when ranks start at different times it goes through the launch of the rank that began
// MPI_Init last, where the wait-path analysis stays on its rank's MPI_Init. So the paths are compared from the
// latest MPI_Init begin to the latest MPI_Finalize enter (test::init_to_finalize() clips the PAG path
// there); from the Enter of MPI_Init when every rank enters it at the same time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "hand_trace.hpp"
#include "pag_path.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;

namespace {

constexpr double kNs = 1e-9;

// Enter of the first call of `f` on rank r, and the MpiCollectiveBegin inside it (or its enter).
struct CallTimes {
  double enter = -1, begin = -1;
};
CallTimes call_times(const Trace& t, Rank r, MpiFunction f) {
  const RankTrace& rt = t.ranks[r];
  for (const CallSpan& c : rt.mpi_calls) {
    if (t.defs.region_of(rt.events[c.enter].ref).mpi != f) continue;
    CallTimes out{rt.events[c.enter].time, rt.events[c.enter].time};
    for (EventIndex i = c.enter; i <= c.leave; ++i)
      if (rt.events[i].kind == EventKind::MpiCollectiveBegin) out.begin = rt.events[i].time;
    return out;
  }
  return {};
}

double total(const std::vector<PathSegment>& s) {
  double sum = 0;
  for (const PathSegment& x : s) sum += x.end - x.start;
  return sum;
}

std::string name(const Trace& t, CallpathId cp) {
  if (cp == kLaunchCallpath) return "(launch)";
  return cp < t.defs.callpaths.size() ? t.defs.callpath_name(cp) : "(no region)";
}

void check_same_path(const Trace& t) {
  const WaitPathAnalysis a1 = analyze_wait_paths(t);
  const Pag pag = build_pag(t);
  const test::DenseCpm cpm = test::dense_cpm(pag.graph);
  const test::PagCriticalPath longest = pag_critical_path(pag, cpm);
  REQUIRE(!a1.critical_path.segments.empty());
  REQUIRE(a1.critical_path.stopped_early == 0);

  // From the trace: the latest MPI_Init begin, the latest MPI_Finalize enter, the run's extent.
  double init_latest = 0, finalize_latest = 0;
  for (Rank r = 0; r < t.rank_count(); ++r) {
    init_latest = std::max(init_latest, call_times(t, r, MpiFunction::Init).begin);
    finalize_latest = std::max(finalize_latest, call_times(t, r, MpiFunction::Finalize).enter);
  }
  const Rank start_rank = a1.critical_path.segments.front().rank;
  const double init_enter = call_times(t, start_rank, MpiFunction::Init).enter;
  const double end = t.end_time();
  const double start = t.start_time();

  // Extents: the wait-path analysis [Init enter of its first rank, latest Finalize enter]; PAG the whole run.
  const std::size_t n = a1.critical_path.segments.size();
  CHECK(a1.critical_path.segments.front().start == Approx(init_enter).margin(kNs));
  CHECK(a1.critical_path.segments.back().end == Approx(finalize_latest).margin(kNs));
  CHECK(a1.critical_path.length == Approx(finalize_latest - init_enter).margin(n * kNs));
  CHECK(longest.length == Approx(end - start).margin(kNs));
  CHECK(longest.length - a1.critical_path.length ==
        Approx((init_enter - start) + (end - finalize_latest)).margin(n * kNs));

  // The same segments from the latest MPI_Init begin to the latest MPI_Finalize enter.
  const auto pag_common = test::init_to_finalize(t, longest.segments);
  const auto a1_common = test::clip_segments(a1.critical_path.segments, init_latest, finalize_latest);
  const std::string difference = test::critical_path_difference(pag_common, a1_common, kNs);
  INFO("PAG path:");
  for (const auto& s : pag_common)
    INFO("  rank " << s.rank << " " << name(t, s.callpath) << " [" << s.start << ", " << s.end << "]");
  INFO("the wait-path analysis path:");
  for (const auto& s : a1_common)
    INFO("  rank " << s.rank << " " << name(t, s.callpath) << " [" << s.start << ", " << s.end << "]");
  CHECK(pag_common.size() >= 3);
  CHECK(difference == "");
  CHECK(total(pag_common) == Approx(finalize_latest - init_latest).margin(n * kNs));
  if (init_latest == init_enter) {
    // Every rank began MPI_Init together: the paths agree from the wait-path analysis's very first segment.
    CHECK(test::critical_path_difference(pag_common, a1.critical_path.segments, kNs) == "");
  } else {
    // Before the latest MPI_Init begin the PAG path is the launch of the rank that started last.
    Rank last = 0;
    for (Rank r = 1; r < t.rank_count(); ++r)
      if (t.ranks[r].events.front().time > t.ranks[last].events.front().time) last = r;
    const PathSegment& first = longest.segments.front();
    CHECK(first.rank == last);
    CHECK(first.callpath == kLaunchCallpath);
    CHECK(first.start == Approx(start).margin(kNs));
    CHECK(first.end == Approx(t.ranks[last].events.front().time).margin(kNs));
  }
}

}  // namespace

TEST_CASE("PAG longest path = the wait-path analysis's critical path: imbalance, all modes", "[pag][criticalpath]") {
  for (const char* mode : {"balanced", "static", "dynamic", "mixed"}) {
    INFO("mode " << mode);
    gen::ImbalanceOptions o;
    o.ranks = 6;
    o.iterations = 12;
    o.mode = mode;
    check_same_path(gen::generate_imbalance(o));
  }
}

TEST_CASE("PAG longest path = the wait-path analysis's critical path: wavefront, mpmd, halo, phases",
          "[pag][criticalpath]") {
  SECTION("wavefront 3x2 with slow border ranks") { check_same_path(test::small_wavefront_with_slow_border()); }
  SECTION("mpmd, mesh partition too slow") { check_same_path(test::small_mpmd_with_slow_mesh()); }
  SECTION("mpmd, particle partition too slow") {
    gen::MpmdOptions o;
    o.particle_ranks = 4;
    o.mesh_ranks = 2;
    o.steps = 5;
    o.shift = 0.6;
    check_same_path(gen::generate_mpmd(o));
  }
  SECTION("halo 3x2, one overloaded rank") {
    gen::HaloOptions o;
    o.dims = {3, 2};
    o.steps = 5;
    o.overload_ranks = {4};
    o.overload = 0.5;
    check_same_path(gen::generate_halo(o));
  }
  SECTION("halo 2x2x2, boundary overloaded, big (rendezvous) messages") {
    gen::HaloOptions o;
    o.dims = {2, 2, 2};
    o.steps = 3;
    o.bytes = 1 << 20;
    o.overload_ranks = {1, 6};
    o.overload = 2;
    o.overload_region = "boundary";
    check_same_path(gen::generate_halo(o));
  }
  SECTION("phases, 4 ranks") {
    gen::PhasesOptions o;
    o.ranks = 4;
    o.iterations = 3;
    check_same_path(gen::generate_phases(o));
  }
  SECTION("halo 3x2 with launch jitter: the paths differ before the latest MPI_Init begin only") {
    gen::HaloOptions o;
    o.dims = {3, 2};
    o.steps = 4;
    o.overload_ranks = {2};
    o.overload = 0.3;
    o.launch_jitter = 0.002;
    check_same_path(gen::generate_halo(o));
  }
}
