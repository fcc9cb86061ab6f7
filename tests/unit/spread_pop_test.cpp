// POP spread over processes (threads stand in for MPI ranks) equals POP of the whole trace exactly:
// the factors of the run and of every window, the clock replay's T_ideal and the hybrid factors,
// on real traces, generated ones and a hand-built trace with every kind of dependency (messages
// below and above the eager limit, a receive that ends before its send starts, collectives of
// every class on the world and on a sub-communicator, a prefix operation), over 1 to 4 and 7
// processes, with the clocks crossing in rounds of one clock and point to point one by one; and a
// trace whose ideal dependencies form a cycle across processes leaves POP out on every process.
#include <catch2/catch.hpp>

#include <cmath>

#include "helpers.hpp"
#include "spread_traces.hpp"
#include "thread_group.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/analysis/pop_analysis.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void require_same(const PopFactors& x, const PopFactors& y) {
  CHECK(same(x.load_balance, y.load_balance));
  CHECK(same(x.serialisation, y.serialisation));
  CHECK(same(x.transfer, y.transfer));
  CHECK(same(x.parallel_efficiency, y.parallel_efficiency));
  CHECK(same(x.communication_efficiency, y.communication_efficiency));
  CHECK(same(x.elapsed, y.elapsed));
  CHECK(same(x.ideal, y.ideal));
  CHECK(same(x.mean_useful, y.mean_useful));
  CHECK(same(x.max_useful, y.max_useful));
}

void require_same(const PopAnalysis& x, const PopAnalysis& y) {
  require_same(x.whole, y.whole);
  CHECK(x.replay_ideal == y.replay_ideal);
  REQUIRE(x.windows.size() == y.windows.size());
  for (std::size_t i = 0; i < y.windows.size(); ++i) {
    INFO("window " << i);
    CHECK(x.windows[i].start == y.windows[i].start);
    CHECK(x.windows[i].end == y.windows[i].end);
    CHECK(x.windows[i].min_events == y.windows[i].min_events);
    require_same(x.windows[i].factors, y.windows[i].factors);
  }
  REQUIRE(x.hybrid.has_value() == y.hybrid.has_value());
  if (y.hybrid) {
    CHECK(x.hybrid->hybrid_parallel_efficiency == y.hybrid->hybrid_parallel_efficiency);
    CHECK(x.hybrid->mpi_load_balance == y.hybrid->mpi_load_balance);
    CHECK(x.hybrid->openmp_parallel_efficiency == y.hybrid->openmp_parallel_efficiency);
    CHECK(x.hybrid->threads == y.hybrid->threads);
  }
}

PopAnalysisOptions options_for(const Trace& whole, std::uint64_t eager_limit) {
  PopAnalysisOptions o;
  o.pop.eager_limit = eager_limit;
  o.windows = resolve_windows(WindowChoice{}, whole.span());
  return o;
}

// POP of the whole trace against POP over 1-4 and 7 processes; over 3 and 7 also the samples with
// clocks crossing one per round, and one per point-to-point message (analyze_pop() chooses).
void require_spread_equals_whole(const fs::path& path, std::uint64_t eager_limit = 65536) {
  const Trace whole_trace = read_otf2(path);
  const PopAnalysisOptions options = options_for(whole_trace, eager_limit);
  const PopAnalysis whole = analyze_pop(whole_trace, options);
  const std::vector<double> times{whole_trace.start_time(), whole_trace.end_time()};
  const PopSamples whole_samples =
      pop_samples(whole_trace, build_pag(whole_trace, eager_limit_options(eager_limit)), times);
  for (int processes : {1, 2, 3, 4, 7}) {
    INFO(path.string() << " over " << processes << " processes, eager limit " << eager_limit);
    std::vector<std::optional<PopAnalysis>> parts(static_cast<std::size_t>(processes));
    std::vector<std::optional<PopSamples>> samples(2 * parts.size());
    test::on_processes(processes, [&](ProcessGroup& group) {
      ReadOptions o;
      o.group = &group;
      o.threads = 1;
      const Trace trace = read_otf2(path, o);
      const auto p = static_cast<std::size_t>(group.process());
      parts[p] = analyze_pop(trace, options, group);
      if (processes != 3 && processes != 7) return;
      const Pag pag = build_pag(trace, eager_limit_options(eager_limit), group);
      samples[2 * p] = pop_samples(trace, pag, times, group, GhostTransport::Rounds, 1);
      samples[2 * p + 1] = pop_samples(trace, pag, times, group, GhostTransport::PointToPoint, 1);
    });
    for (const std::optional<PopAnalysis>& part : parts) {
      REQUIRE(part.has_value());
      require_same(*part, whole);
    }
    for (const std::optional<PopSamples>& s : samples) {
      if (!s) continue;
      CHECK(s->ideal_runtime == whole_samples.ideal_runtime);
      CHECK(s->useful == whole_samples.useful);
      CHECK(s->ideal == whole_samples.ideal);
    }
  }
}

}  // namespace

TEST_CASE("POP over processes equals it in one, on real traces", "[analysis][processes][pop]") {
  for (const char* name : test::kSpreadRealTraces) require_spread_equals_whole(test::real_trace(name));
}

TEST_CASE("POP over processes equals it in one, on generated and hand-built traces", "[analysis][processes][pop]") {
  TempDir dir;
  write_otf2(gen::generate_halo(test::spread_halo()), dir / "halo");
  require_spread_equals_whole(dir / "halo");
  require_spread_equals_whole(dir / "halo", 0);  // every message a rendezvous
  write_otf2(gen::generate_mpmd(gen::MpmdOptions{}), dir / "mpmd");
  require_spread_equals_whole(dir / "mpmd");
  write_otf2(gen::generate_wavefront(gen::WavefrontOptions{}), dir / "wavefront");
  require_spread_equals_whole(dir / "wavefront", 0);
  write_otf2(gen::generate_hybrid(gen::HybridOptions{}), dir / "hybrid");
  require_spread_equals_whole(dir / "hybrid");
  write_otf2(test::every_dependency(), dir / "every");
  for (const std::uint64_t limit : {std::uint64_t{0}, std::uint64_t{1} << 12, std::uint64_t{65536}})
    require_spread_equals_whole(dir / "every", limit);
}

TEST_CASE("POP over processes is left out when the ideal dependencies form a cycle", "[analysis][processes][pop]") {
  TempDir dir;
  write_otf2(test::ideal_cycle(), dir / "cycle");
  const Trace whole = read_otf2(dir / "cycle");
  CHECK(analyze_pop(whole, options_for(whole, 65536)).replay_ideal > 0);  // one process breaks the cycle
  for (int processes : {1, 2}) {
    std::vector<int> pop(static_cast<std::size_t>(processes), -1);
    test::on_processes(processes, [&](ProcessGroup& group) {
      ReadOptions o;
      o.group = &group;
      const Trace trace = read_otf2(dir / "cycle", o);
      TraceAnalysisOptions options;
      pop[static_cast<std::size_t>(group.process())] = analyze_trace(trace, options, group).pop ? 1 : 0;
    });
    // One process's part is the whole graph, which breaks the cycle.
    CHECK(pop == std::vector<int>(static_cast<std::size_t>(processes), processes == 1 ? 1 : 0));
  }
}
