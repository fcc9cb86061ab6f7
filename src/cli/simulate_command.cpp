// `wisp simulate TRACE [--platform P.xml] [--eager BYTES] [--coll-algo ...] [--chrome-trace FILE] -o OUT_DIR`:
// replays the trace on SimGrid, writes the simulated OTF2 trace and compares runtimes per rank;
// --chrome-trace also writes the measured and the simulated timelines (with their wait states).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "wisp/error.hpp"
#include "wisp/analysis/timeline.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/replay/trust.hpp"
#include "wisp/report/chrome_trace.hpp"

namespace wisp::cli {

namespace {

struct Options {
  std::string trace, output, platform, coll_algo, hostfile, costs = "anchored", chrome_trace;
  std::uint64_t eager = 0;
  bool eager_set = false;
  bool zero_communication = false;
  bool force = false;
};

std::string percent(double measured, double simulated) {
  if (measured == 0) return simulated == 0 ? "+0.00 %" : "n/a";
  return fmt::format("{:+.2f} %", (simulated - measured) / measured * 100);
}

// The platform file, else one calibrated from the trace (with its collective algorithms).
Platform choose_platform(const Options& o, const Trace& trace, CollectiveAlgorithms& algorithms) {
  if (!o.platform.empty()) {
    Platform platform = load_platform(o.platform);
    std::printf("platform     %s\n", o.platform.c_str());
    return platform;
  }
  Calibration c = calibrate(trace);
  if (o.costs == "model") calibrate_call_costs(trace, c);
  for (const std::string& note : c.notes) spdlog::warn("calibration: {}", note);
  algorithms = c.algorithms;
  for (const std::string& e : c.algorithm_evidence) spdlog::info("calibration: {}", e);
  std::printf("platform     calibrated from the trace: L %.3f us, B %.4g GB/s, eager threshold %llu bytes "
              "%s(see wisp calibrate)\n", c.latency * 1e6, c.bandwidth / 1e9,
              static_cast<unsigned long long>(c.eager_threshold),
              c.call_costs.empty() ? "" : "typical call costs per rank, function and size class ");
  return c.platform;
}

ReplayOptions replay_options(const Options& o, const CollectiveAlgorithms& algorithms) {
  ReplayOptions options;
  if (o.eager_set) options.eager_threshold = o.eager;
  options.algorithms = o.coll_algo.empty() ? algorithms : parse_collective_algorithms(o.coll_algo, algorithms);
  if (!o.hostfile.empty()) options.hosts = read_hostfile(o.hostfile);
  options.zero_communication = o.zero_communication;
  options.anchor = o.costs == "anchored";
  std::printf("collectives  %s\n", format_collective_algorithms(options.algorithms).c_str());
  std::printf("costs        %s\n", options.anchor ? "trace-anchored (each MPI call keeps its traced cost; "
                                                     "the platform model computes its part)"
                                                   : "model only (the platform's costs)");
  return options;
}

// Measured against simulated end per rank, the identity error and the residuals.
void print_comparison(const Trace& trace, const ReplayResult& result) {
  std::printf("%-8s %16s %16s %10s\n", "rank", "measured [s]", "simulated [s]", "error");
  double measured_total = 0;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& ev = trace.ranks[r].events;
    const double measured = ev.empty() ? 0 : ev.back().time;
    measured_total = std::max(measured_total, measured);
    std::printf("%-8u %16.9f %16.9f %10s\n", r, measured, result.rank_end[r],
                percent(measured, result.rank_end[r]).c_str());
  }
  std::printf("%-8s %16.9f %16.9f %10s\n", "total", measured_total, result.runtime,
              percent(measured_total, result.runtime).c_str());
  const double error = identity_error(measured_total, result.runtime);
  std::printf("identity error %+.2f %% (simulated vs measured runtime)\n", 100 * error);
  std::optional<ResidualSummary> residuals;
  if (result.residuals) {
    residuals = summarize(trace, *result.residuals);
    std::printf("residuals (traced MPI time the model does not explain)\n%s", residual_text(*residuals).c_str());
  }
  for (const std::string& w : {identity_warning(error, residuals ? &*residuals : nullptr), hybrid_warning(trace)})
    if (!w.empty()) {
      std::fflush(stdout);
      spdlog::warn("{}", w);
    }
}

// The measured and the simulated timelines, each with its wait states and critical path.
std::string chrome_trace(const Trace& measured, const Trace& simulated) {
  const Timeline m = build_timeline(measured, analyze_wait_paths(measured));
  const Timeline s = build_timeline(simulated, analyze_wait_paths(simulated));
  return chrome_trace_json({{"measured", &m}, {"simulated", &s}});
}

// A --chrome-trace FILE whose directory is missing is refused before anything is written.
void check_writable(const std::string& file) {
  const std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error(fmt::format("--chrome-trace {}: the directory {} does not exist", file, dir.string()));
}

void run(const Options& o) {
  if (!o.chrome_trace.empty()) check_writable(o.chrome_trace);
  const Trace trace = read_otf2(o.trace);
  CollectiveAlgorithms algorithms;
  const Platform platform = choose_platform(o, trace, algorithms);
  const ReplayOptions options = replay_options(o, algorithms);
  ReplayResult result;
  try {
    result = replay(trace, platform, options);
  } catch (const ReplayDeadlock& e) {
    throw Error(o.trace + ": " + e.what());
  }
  const std::string chrome = o.chrome_trace.empty() ? std::string() : chrome_trace(trace, result.trace);
  WriteOptions w;
  w.force = o.force;
  w.creator = "wisp simulate";
  w.description = "simulated replay of " + o.trace;
  write_otf2(result.trace, o.output, w);
  print_comparison(trace, result);
  if (!o.chrome_trace.empty()) {
    write_file_atomically(o.chrome_trace, chrome);
    std::printf("wrote %s\n", o.chrome_trace.c_str());
  }
  const ReplayStatistics& s = result.statistics;
  spdlog::info("replayed {} events ({} MPI operations, {} messages) in {:.3f} s of simulation",
               s.events, s.mpi_operations, s.messages, s.simulation_seconds);
  std::printf("wrote %s\n", o.output.c_str());
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("simulate", "replay a trace on a SimGrid platform and write the simulated trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it")->required();
  cmd->add_option("-o,--output", o->output, "directory for the simulated OTF2 trace")->required();
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_option("--platform", o->platform, "SimGrid platform XML (default: calibrated from the trace)");
  cmd->add_option("--eager", o->eager, "largest message sent eagerly [bytes] (default: the platform's)")
      ->each([o](const std::string&) { o->eager_set = true; });
  cmd->add_option("--coll-algo", o->coll_algo,
                  "collective algorithms, e.g. analytic or allreduce=ring,bcast=binomial");
  cmd->add_option("--hostfile", o->hostfile, "rank→host mapping: one host (or host:N) per line");
  cmd->add_option("--costs", o->costs, "anchored: every MPI call keeps its traced cost (default); model: "
                  "the platform's costs only")
      ->check(CLI::IsMember({"anchored", "model"}));
  cmd->add_option("--chrome-trace", o->chrome_trace,
                  "also write the measured and the simulated timelines to FILE (Chrome/Perfetto trace JSON)");
  cmd->add_flag("--zero-communication", o->zero_communication, "every message has zero bytes and no latency");
  cmd->callback([o] { run(*o); });
}

}  // namespace wisp::cli
