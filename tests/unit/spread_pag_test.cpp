// The activity-graph analysis spread over processes (threads stand in for MPI ranks) equals it in
// one process exactly: the critical path's length, the near-critical paths (durations, time per
// call path, parents, variants of the distinct ones), the MBM rows and the PAG's anomalies, on real traces,
// generated ones and a hand-built trace with every kind of dependency, over 1 to 4 and 7 processes.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "spread_traces.hpp"
#include "thread_group.hpp"
#include "wisp/analysis/pag_analysis.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

void require_same(const NearCriticalPaths& x, const NearCriticalPaths& y) {
  CHECK(x.critical_length == y.critical_length);
  CHECK(x.more_available == y.more_available);
  CHECK(x.nc_bound == y.nc_bound);
  REQUIRE(x.paths.size() == y.paths.size());
  for (std::size_t i = 0; i < y.paths.size(); ++i) {
    INFO("path " << i);
    CHECK(x.paths[i].duration == y.paths[i].duration);
    CHECK(x.paths[i].variants == y.paths[i].variants);
    CHECK(x.paths[i].parent == y.paths[i].parent);
    CHECK(x.paths[i].callpaths == y.paths[i].callpaths);
  }
}

void require_same(const PagAnalysis& x, const PagAnalysis& y) {
  CHECK(x.cpm.length == y.cpm.length);
  CHECK(x.pag.ticks_per_second == y.pag.ticks_per_second);
  CHECK(x.pag.anomalies.receive_before_send == y.pag.anomalies.receive_before_send);
  CHECK(x.pag.anomalies.inconsistent_collectives == y.pag.anomalies.inconsistent_collectives);
  CHECK(x.pag.anomalies.cycle_activities == y.pag.anomalies.cycle_activities);
  {
    INFO("k paths");
    require_same(x.paths, y.paths);
  }
  {
    INFO("distinct paths");
    require_same(x.distinct, y.distinct);
  }
  REQUIRE(x.mbm.size() == y.mbm.size());
  for (std::size_t i = 0; i < y.mbm.size(); ++i) {
    INFO("MBM row " << i);
    CHECK(x.mbm[i].callpath == y.mbm[i].callpath);
    CHECK(x.mbm[i].critical_path == y.mbm[i].critical_path);
    CHECK(x.mbm[i].mbm_k == y.mbm[i].mbm_k);
    CHECK(x.mbm[i].mbm_all == y.mbm[i].mbm_all);
  }
}

void require_spread_equals_whole(const fs::path& path, const PagAnalysisOptions& options = {},
                                 std::initializer_list<int> counts = {1, 2, 3, 4, 7}) {
  const PagAnalysis whole = analyze_pag(read_otf2(path), options);
  for (int processes : counts) {
    INFO(path.string() << " over " << processes << " processes");
    std::vector<std::optional<PagAnalysis>> parts(static_cast<std::size_t>(processes));
    test::on_processes(processes, [&](ProcessGroup& group) {
      ReadOptions o;
      o.group = &group;
      o.threads = 1;
      const Trace trace = read_otf2(path, o);
      parts[static_cast<std::size_t>(group.process())] = analyze_pag(trace, options, group);
    });
    for (const std::optional<PagAnalysis>& part : parts) {
      REQUIRE(part.has_value());
      require_same(*part, whole);
    }
  }
}

}  // namespace

TEST_CASE("The activity-graph analysis over processes equals it in one, on real traces", "[analysis][processes][pag]") {
  for (const char* name : test::kSpreadRealTraces) require_spread_equals_whole(test::real_trace(name));
}

TEST_CASE("The activity-graph analysis over processes equals it in one, on generated and hand-built traces",
          "[analysis][processes][pag]") {
  TempDir dir;
  write_otf2(gen::generate_halo(test::spread_halo()), dir / "halo");
  require_spread_equals_whole(dir / "halo");
  PagAnalysisOptions eager;
  eager.pag = eager_limit_options(0);  // every message a rendezvous
  require_spread_equals_whole(dir / "halo", eager);
  write_otf2(gen::generate_mpmd(gen::MpmdOptions{}), dir / "mpmd");
  require_spread_equals_whole(dir / "mpmd");
  write_otf2(gen::generate_wavefront(gen::WavefrontOptions{}), dir / "wavefront");
  require_spread_equals_whole(dir / "wavefront");
  write_otf2(gen::generate_hybrid(gen::HybridOptions{}), dir / "hybrid");
  require_spread_equals_whole(dir / "hybrid");
  write_otf2(test::every_dependency(), dir / "every");
  require_spread_equals_whole(dir / "every");
  for (const std::uint64_t limit : {std::uint64_t{0}, std::uint64_t{1} << 12, std::uint64_t{65536}}) {
    eager.pag = eager_limit_options(limit);
    require_spread_equals_whole(dir / "every", eager);
  }
}

TEST_CASE("The near-critical queries over processes equal them in one", "[analysis][processes][pag]") {
  for (const auto& [k, nc] : {std::pair<std::optional<std::size_t>, std::optional<double>>{25, std::nullopt},
                              {std::nullopt, 1.0},
                              {5, 0.5},
                              {1, std::nullopt}}) {
    PagAnalysisOptions options;
    options.query.k = k;
    options.query.nc_percent = nc;
    options.query.limit = 60;  // nc % alone: up to 60 paths (10,000 by default) and more available
    require_spread_equals_whole(test::real_trace("apps/minife_100c_imb20_4r"), options, {1, 3});
    require_spread_equals_whole(test::real_trace("whatif/imb8_ring/static"), options, {2, 4});
  }
}

TEST_CASE("The activity-graph analysis over processes is left out when the dependencies form a cycle",
          "[analysis][processes][pag]") {
  TempDir dir;
  write_otf2(test::ideal_cycle(), dir / "cycle");
  const PagAnalysis whole = analyze_pag(read_otf2(dir / "cycle"));
  CHECK(whole.pag.anomalies.cycle_activities > 0);  // one process breaks it: over one, the same
  std::optional<PagAnalysis> one;
  test::on_processes(1, [&](ProcessGroup& group) {
    ReadOptions o;
    o.group = &group;
    one = analyze_pag(read_otf2(dir / "cycle", o), {}, group);
  });
  REQUIRE(one.has_value());
  require_same(*one, whole);
  for (int processes : {2, 3}) {
    std::vector<int> results(static_cast<std::size_t>(processes), -1);
    test::on_processes(processes, [&](ProcessGroup& group) {
      ReadOptions o;
      o.group = &group;
      const Trace trace = read_otf2(dir / "cycle", o);
      results[static_cast<std::size_t>(group.process())] = analyze_pag(trace, {}, group).has_value() ? 1 : 0;
    });
    CHECK(results == std::vector<int>(static_cast<std::size_t>(processes), 0));
  }
}
