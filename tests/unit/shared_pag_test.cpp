// One program activity graph for every analysis: the analysis PAG built with the ideal
// network's dependencies as its second variant gives POP's clock replay exactly what a PAG of its
// own gives, and its first variant gives the near-critical paths and MBM exactly what a PAG without
// that variant gives. Generated traces with messages above and below several eager limits, and
// the shared real traces.
#include <catch2/catch.hpp>

#include <cmath>

#include "helpers.hpp"
#include "ideal_network.hpp"
#include "pag_path.hpp"
#include "reference_cpm.hpp"
#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/analysis/pop.hpp"
#include "wisp/analysis/pop_analysis.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void require_same_timeline(const PopTimeline& a, const PopTimeline& b) {
  CHECK(a.ideal_runtime == b.ideal_runtime);
  CHECK(a.start == b.start);
  CHECK(a.end == b.end);
  REQUIRE(a.ranks.size() == b.ranks.size());
  for (Rank r = 0; r < a.ranks.size(); ++r) {
    INFO("rank " << r);
    REQUIRE(a.point_count(r) == b.point_count(r));
    for (std::size_t i = 0; i < a.point_count(r); ++i) {
      CHECK(a.point(r, i).time == b.point(r, i).time);
      CHECK(a.point(r, i).useful == b.point(r, i).useful);
      CHECK(a.point(r, i).ideal == b.point(r, i).ideal);
    }
    REQUIRE(a.mpi_event_count(r) == b.mpi_event_count(r));
    for (std::size_t i = 0; i < a.mpi_event_count(r); ++i) CHECK(a.mpi_event_time(r, i) == b.mpi_event_time(r, i));
  }
}

// The timeline's ideal clocks (filled by a sparse sweep) are the per-vertex clock's of the ideal-network
// replay at every breakpoint: each rank's first and last event, every call's enter and leave.
void require_dense_clocks(const Trace& t, const PopTimeline& tl, std::uint64_t eager_limit) {
  const test::IdealNetworkReplay replay = test::ideal_network_replay(t, eager_limit);
  CHECK(tl.ideal_runtime == replay.runtime);
  for (Rank r = 0; r < t.rank_count(); ++r) {
    const auto& calls = replay.pag.calls[r];
    if (t.ranks[r].events.empty()) continue;
    REQUIRE(tl.point_count(r) == 3 * calls.size() + 2);
    CHECK(tl.point(r, 0).ideal == replay.clock_at(r, 0));
    CHECK(tl.point(r, tl.point_count(r) - 1).ideal ==
          replay.clock_at(r, static_cast<EventIndex>(t.ranks[r].events.size() - 1)));
    for (std::size_t k = 0; k < calls.size(); ++k) {
      CHECK(tl.point(r, 1 + 3 * k).ideal == replay.clock_at(r, calls[k].enter));
      CHECK(tl.point(r, 2 + 3 * k).ideal == replay.clock_at(r, calls[k].leave));
      CHECK(tl.point(r, 3 + 3 * k).ideal == replay.clock_at(r, calls[k].leave));
    }
  }
}

// The CPM that keeps tails only where chains start, end or meet explicit activities (wisp
// analyze's) gives every latest time and the critical path of the dense one (reference_cpm.hpp).
void require_lean_cpm_agrees(const ActivityGraph& g, const test::DenseCpm& dense) {
  std::vector<std::uint32_t> critical;
  const Cpm lean = critical_path_method(g, critical);
  CHECK(lean.length == dense.length);
  bool same_latest = true, kept_right = true;
  for (std::uint32_t v = 0; v < g.vertex_count; ++v) {
    same_latest = same_latest && lean.latest_at(g, v) == dense.latest[v];
    kept_right = kept_right && lean.tails.kept(v) == ChainTails::keeps(g, v);
  }
  CHECK(same_latest);
  CHECK(kept_right);  // the marks built word by word are the rule's
  CHECK(critical == critical_path(g, dense));
  test::require_zero_slack_ways_agree(g, critical);
  NearCriticalQuery q;
  q.k = 30;
  // The successor table built in three parts (as on three threads) and in one.
  const NearCriticalPaths pl = near_critical_paths(g, lean, q, critical, 3), pd = near_critical_paths(g, dense, q);
  REQUIRE(pl.paths.size() == pd.paths.size());
  for (std::size_t j = 0; j < pd.paths.size(); ++j) {
    CHECK(pl.paths[j].duration == pd.paths[j].duration);
    CHECK(path_activities(g, pl, j) == path_activities(g, pd, j));
  }
}

bool same_factors(const PopFactors& a, const PopFactors& b) {
  return same(a.load_balance, b.load_balance) && same(a.serialisation, b.serialisation) &&
         same(a.transfer, b.transfer) && same(a.parallel_efficiency, b.parallel_efficiency) &&
         same(a.communication_efficiency, b.communication_efficiency) && a.elapsed == b.elapsed && a.ideal == b.ideal &&
         a.mean_useful == b.mean_useful && a.max_useful == b.max_useful;
}

// The timers sampled during the sweep (what analyze_pop keeps) are the timeline's, bit for bit:
// at every breakpoint, between breakpoints, before the first and after the last event; and
// analyze_pop's factors and windows are pop_factors() and pop_windows() on the timeline.
void require_samples_agree(const Trace& t, const Pag& pag, const PopTimeline& tl, const PopAnalysisOptions& pop) {
  std::vector<double> probes{t.start_time() - 1, t.end_time() + 1};
  for (Rank r = 0; r < t.rank_count(); r += 3)
    for (std::size_t i = 0; i < tl.point_count(r); ++i) {
      probes.push_back(tl.point(r, i).time);
      if (i + 1 < tl.point_count(r)) probes.push_back((tl.point(r, i).time + tl.point(r, i + 1).time) / 2);
    }
  const PopSamples samples = pop_samples(t, pag, probes);
  CHECK(samples.ideal_runtime == tl.ideal_runtime);
  for (Rank r = 0; r < t.rank_count(); ++r)
    for (double x : probes) {
      CHECK(samples.useful_at(r, x) == tl.useful_at(r, x));
      CHECK(samples.ideal_at(r, x) == tl.ideal_at(r, x));
    }
  CHECK_THROWS_AS(samples.useful_at(0, t.end_time() + 2), Error);
  const PopAnalysis a = analyze_pop(t, pop, &pag);
  CHECK(same_factors(a.whole, pop_factors(tl, pop.pop)));
  const std::vector<PopWindow> windows = pop_windows(tl, *pop.windows);
  REQUIRE(a.windows.size() == windows.size());
  for (std::size_t w = 0; w < windows.size(); ++w) {
    CHECK(a.windows[w].start == windows[w].start);
    CHECK(a.windows[w].end == windows[w].end);
    CHECK(a.windows[w].min_events == windows[w].min_events);
    CHECK(same_factors(a.windows[w].factors, windows[w].factors));
  }
}

void require_shared_pag_agrees(const Trace& t, std::uint64_t eager_limit) {
  INFO("eager limit " << eager_limit);
  PagOptions with_ideal;
  with_ideal.ideal_eager_limit = eager_limit;
  const Pag shared = build_pag(t, with_ideal);
  REQUIRE(shared.ideal_variant == kSecondVariant);
  const PopTimeline timeline = pop_timeline(t, shared);
  require_same_timeline(timeline, pop_timeline(t, eager_limit));
  require_dense_clocks(t, timeline, eager_limit);

  PopAnalysisOptions pop;
  pop.pop.eager_limit = eager_limit;
  pop.windows = WindowOptions{t.span() / 7, 0};
  const PopAnalysis own = analyze_pop(t, pop), on_shared = analyze_pop(t, pop, &shared);
  require_samples_agree(t, shared, timeline, pop);
  CHECK(own.replay_ideal == on_shared.replay_ideal);
  CHECK(same(own.whole.serialisation, on_shared.whole.serialisation));
  REQUIRE(own.windows.size() == on_shared.windows.size());
  for (std::size_t w = 0; w < own.windows.size(); ++w)
    CHECK(same(own.windows[w].factors.transfer, on_shared.windows[w].factors.transfer));

  const Pag plain = build_pag(t);
  CHECK(shared.time == plain.time);
  const test::DenseCpm a = test::dense_cpm(shared.graph), b = test::dense_cpm(plain.graph);
  CHECK(a.earliest == b.earliest);
  CHECK(a.latest == b.latest);
  require_lean_cpm_agrees(shared.graph, a);
  NearCriticalQuery q;
  q.k = 20;
  const NearCriticalPaths pa = near_critical_paths(shared.graph, a, q), pb = near_critical_paths(plain.graph, b, q);
  REQUIRE(pa.paths.size() == pb.paths.size());
  for (std::size_t j = 0; j < pa.paths.size(); ++j) {
    CHECK(pa.paths[j].duration == pb.paths[j].duration);
    CHECK(pa.paths[j].callpaths == pb.paths[j].callpaths);
    CHECK(test::activity_values(shared.graph, path_activities(shared.graph, pa, j)) ==
          test::activity_values(plain.graph, path_activities(plain.graph, pb, j)));
  }
  const auto ma = maximum_benefit(shared.graph, a, pa), mb = maximum_benefit(plain.graph, b, pb);
  REQUIRE(ma.size() == mb.size());
  for (std::size_t i = 0; i < ma.size(); ++i) {
    CHECK(ma[i].callpath == mb[i].callpath);
    CHECK(ma[i].mbm_all == mb[i].mbm_all);
    // The passes' lanes (four call paths, gaps inside chains summed once) = the one-call-path sweep.
    if (i < 24 && ma[i].mbm_k > 0) CHECK(ma[i].mbm_all == mbm_all(shared.graph, a, ma[i].callpath));
  }
  const Pag own_pag = build_pag(t, eager_limit_options(eager_limit));
  for (Rank r = 0; r < t.rank_count(); ++r) {
    REQUIRE(own_pag.calls[r].size() == shared.calls[r].size());
    for (std::size_t c = 0; c < own_pag.calls[r].size(); ++c)
      CHECK(shared.calls[r][c].ideal_release == own_pag.calls[r][c].ideal_release);
  }
}

}  // namespace

TEST_CASE("the analysis PAG's ideal variant gives POP what a PAG of its own gives, generated traces", "[pag][pop]") {
  gen::HaloOptions halo;  // 128 KiB halo messages: rendezvous above the smaller limits
  halo.dims = {4, 3};
  halo.steps = 12;
  halo.bytes = 131072;
  halo.launch_jitter = 1e-3;
  halo.overload_ranks = {0, 5};
  halo.overload = 0.4;
  const Trace h = gen::generate_halo(halo);
  for (std::uint64_t limit : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{65536}, std::uint64_t{1} << 30})
    require_shared_pag_agrees(h, limit);
  require_shared_pag_agrees(gen::generate_wavefront({}), 1000);
  require_shared_pag_agrees(gen::generate_mpmd({}), 65536);
  require_shared_pag_agrees(gen::generate_phases({}), 0);
}

TEST_CASE("the analysis PAG's ideal variant gives POP what a PAG of its own gives, real traces", "[pag][pop]") {
  for (const char* name : {"apps/sweep3d_50c_6r", "apps/cloverleaf_bm_short_4r", "apps/minife_100c_imb20_4r",
                           "other-writers/casita-10_scorep_mpi_tags", "scorep-ping-pong"}) {
    const std::filesystem::path dir = test::real_trace(name);
    INFO(name);
    const Trace t = read_otf2(dir);
    require_shared_pag_agrees(t, 65536);
    require_shared_pag_agrees(t, 1000);
  }
}

TEST_CASE("a PAG built without its vertex times: the same graph, 8 bytes per vertex less, no segments", "[pag]") {
  gen::HaloOptions halo;
  halo.dims = {3, 2};
  halo.steps = 10;
  const Trace t = gen::generate_halo(halo);
  PagOptions lean;
  lean.vertex_times = false;
  const Pag a = build_pag(t, lean), b = build_pag(t);
  CHECK(a.time.empty());
  CHECK(b.memory_bytes() - a.memory_bytes() >= 8 * std::uint64_t{b.graph.vertex_count});
  const test::DenseCpm ca = test::dense_cpm(a.graph), cb = test::dense_cpm(b.graph);
  CHECK(ca.earliest == cb.earliest);
  CHECK(ca.latest == cb.latest);
  CHECK(critical_path(a.graph, ca) == critical_path(b.graph, cb));
  CHECK_THROWS_AS(pag_critical_path(a, ca), Error);
  CHECK(pag_critical_path(b, cb).segments.size() > 0);
}

TEST_CASE("POP with more windows than the timeline's size: the timeline's factors all the same", "[pag][pop]") {
  // 12 ranks x 40,002 window borders x 16 bytes outweigh 48 bytes per MPI call: analyze_pop keeps
  // the timeline instead of the samples; its windows are still pop_windows() on pop_timeline().
  gen::HaloOptions halo;
  halo.dims = {4, 3};
  halo.steps = 5;
  const Trace t = gen::generate_halo(halo);
  PopAnalysisOptions pop;
  pop.windows = WindowOptions{t.span() / 20000, 0};
  const PopAnalysis a = analyze_pop(t, pop);
  const PopTimeline tl = pop_timeline(t, pop.pop.eager_limit);
  const std::vector<PopWindow> windows = pop_windows(tl, *pop.windows);
  REQUIRE(windows.size() >= 20000);
  REQUIRE(a.windows.size() == windows.size());
  bool same_windows = true;
  for (std::size_t w = 0; w < windows.size(); ++w)
    same_windows = same_windows && a.windows[w].start == windows[w].start && a.windows[w].end == windows[w].end &&
                   same_factors(a.windows[w].factors, windows[w].factors);
  CHECK(same_windows);
  CHECK(same_factors(a.whole, pop_factors(tl, pop.pop)));
}
