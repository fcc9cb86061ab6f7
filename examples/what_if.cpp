// wisp as a library (include/wisp/wisp.hpp, target wisp::wisp): generate a trace of 8 ranks whose
// first rank works 25 % longer, write it as OTF2 and read it back, analyse it, replay it on a
// platform calibrated from it, and ask what balancing work() would gain. Expected output:
// what_if.out beside this file (the generator's model makes every figure exact; ctest checks it).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>

#include "wisp/wisp.hpp"

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : "what-if-trace";
  // wisp logs its progress and calibration notes through spdlog's default logger: to stderr here.
  spdlog::set_default_logger(spdlog::stderr_color_mt("wisp"));

  // 1. A trace: 8 ranks, 40 iterations of work() + MPI_Barrier, rank 0 overloaded by 25 %.
  wisp::gen::ImbalanceOptions o;
  o.ranks = 8;
  o.iterations = 40;
  o.mode = "static";
  wisp::WriteOptions w;
  w.force = true;
  wisp::write_otf2(wisp::gen::generate_imbalance(o), dir, w);
  const wisp::Trace trace = wisp::read_otf2(dir);
  std::printf("trace        %u ranks, %llu events, runtime %.6f s (balanced by the model: %.6f s)\n",
              trace.rank_count(), static_cast<unsigned long long>(trace.event_count()), trace.end_time(),
              wisp::gen::imbalance_balanced_runtime(o));

  // 2. Analyse: critical path and POP factors (wait states, delay costs, MBM are in `a` too; the
  //    parts not asked for in its options are absent).
  const wisp::TraceAnalysis a = wisp::analyze_trace(trace);
  const wisp::PopFactors& pop = a.pop->whole;
  std::printf("analysis     critical path %.6f s, load balance %.1f %%, parallel efficiency %.1f %%\n",
              a.wait_paths.critical_path.length, 100 * pop.load_balance, 100 * pop.parallel_efficiency);

  // 3. Simulate: the unmodified trace on a platform calibrated from it.
  const wisp::Calibration c = wisp::calibrate(trace);
  const wisp::ReplayResult r = wisp::replay(trace, c.platform);
  std::printf("replay       %.6f s simulated\n", r.runtime);

  // 4. Evaluate a what-if: work() balanced over the ranks, replayed beside the identity.
  const wisp::Scenario s = wisp::parse_scenario(
      "wisp: 1\nname: balance-work\ntrace: " + dir.string() + "\ntransforms:\n  - rebalance: {region: work}\n",
      "what_if.yaml");
  const wisp::PointEvaluation p = wisp::evaluate_point(s, trace);
  std::printf("what-if      %s: identity %.6f s, scenario %.6f s, gain %.6f s (%.1f %%)\n", s.name.c_str(),
              p.result.identity, p.result.scenario, p.result.gain(), p.result.gain_percent());
  return 0;
}
