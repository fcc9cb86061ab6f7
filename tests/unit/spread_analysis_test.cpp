// The analyses spread over processes (threads stand in for MPI ranks) equal the single-process
// ones exactly: every metric of the wait-path analysis on every (call path, rank) — wait states,
// critical path, delay costs, imbalance —, the critical path's segments and length, and the delay
// accounting, on real traces and generated ones, over 1 to 4 processes and more processes than
// ranks, and with the delay replay's rounds as small as one release.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "spread_traces.hpp"
#include "thread_group.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

// What must be equal, as plain values (compared with ==: exactly).
struct WaitPathValues {
  MetricTable table;
  std::vector<PathSegment> segments;
  double length = 0;
  Rank end_rank = kNone;
  std::uint64_t stopped_early = 0;
  std::vector<double> delay_sums;
  std::vector<std::uint64_t> delay_counts;
  std::vector<std::uint32_t> partitions;
};

WaitPathValues values_of(const WaitPathAnalysis& a) {
  const DelayCosts& d = a.delays;
  return WaitPathValues{metric_table(a),
                        a.critical_path.segments,
                        a.critical_path.length,
                        a.critical_path.end_rank,
                        a.critical_path.stopped_early,
                        {d.total_wait, d.short_sum, d.long_sum, d.unattributed},
                        {d.unattributed_waits, d.cycles_broken},
                        a.partitions.of_rank};
}

void require_equal(const WaitPathValues& spread, const WaitPathValues& whole) {
  REQUIRE(spread.table.metrics == whole.table.metrics);
  REQUIRE(spread.table.records.size() == whole.table.records.size());
  for (std::size_t i = 0; i < whole.table.records.size(); ++i) {
    const MetricRecord& x = spread.table.records[i];
    const MetricRecord& y = whole.table.records[i];
    INFO(whole.table.metrics[y.metric] << " call path " << y.callpath << " rank " << y.rank);
    REQUIRE((x.metric == y.metric && x.callpath == y.callpath && x.rank == y.rank));
    REQUIRE(x.value == y.value);
  }
  REQUIRE(spread.segments.size() == whole.segments.size());
  for (std::size_t i = 0; i < whole.segments.size(); ++i) {
    const PathSegment& x = spread.segments[i];
    const PathSegment& y = whole.segments[i];
    REQUIRE((x.rank == y.rank && x.callpath == y.callpath && x.start == y.start && x.end == y.end));
  }
  CHECK(spread.length == whole.length);
  CHECK(spread.end_rank == whole.end_rank);
  CHECK(spread.stopped_early == whole.stopped_early);
  CHECK(spread.delay_sums == whole.delay_sums);
  CHECK(spread.delay_counts == whole.delay_counts);
  CHECK(spread.partitions == whole.partitions);
}

void require_spread_equals_whole(const fs::path& path) {
  for (const DelayRules rules : {DelayRules::Scalasca, DelayRules::Paper}) {
    WaitPathOptions options;
    options.delay_rules = rules;
    const WaitPathValues whole = values_of(analyze_wait_paths(read_otf2(path), options));
    for (int processes : {1, 2, 3, 4, 7}) {
      // Over 3 and 7 processes, rounds of one release each (every rank with more to send waits a round).
      options.release_round_bytes = processes == 3 || processes == 7 ? 1 : kReleaseRoundBytes;
      INFO(path.string() << " over " << processes << " processes, delay rules " << to_string(rules) << ", rounds of "
                         << options.release_round_bytes << " bytes");
      std::vector<WaitPathValues> parts(static_cast<std::size_t>(processes));
      test::on_processes(processes, [&](ProcessGroup& group) {
        ReadOptions o;
        o.group = &group;
        o.threads = 1;
        const Trace trace = read_otf2(path, o);
        parts[static_cast<std::size_t>(group.process())] = values_of(analyze_wait_paths(trace, options, group));
      });
      for (const WaitPathValues& part : parts) require_equal(part, whole);
    }
  }
}

}  // namespace

TEST_CASE("the wait-path analysis over processes equals it in one, on real traces", "[analysis][processes]") {
  for (const char* name : test::kSpreadRealTraces) require_spread_equals_whole(test::real_trace(name));
}

TEST_CASE("the wait-path analysis over processes equals it in one, on generated traces", "[analysis][processes]") {
  TempDir dir;
  write_otf2(gen::generate_halo(test::spread_halo()), dir / "halo");
  require_spread_equals_whole(dir / "halo");
  gen::MpmdOptions mpmd;
  write_otf2(gen::generate_mpmd(mpmd), dir / "mpmd");
  require_spread_equals_whole(dir / "mpmd");
  for (const char* mode : {"static", "dynamic"}) {
    gen::ImbalanceOptions imbalance;
    imbalance.mode = mode;
    write_otf2(gen::generate_imbalance(imbalance), dir / mode);
    require_spread_equals_whole(dir / mode);
  }
  gen::WavefrontOptions wavefront;
  write_otf2(gen::generate_wavefront(wavefront), dir / "wavefront");
  require_spread_equals_whole(dir / "wavefront");
}
