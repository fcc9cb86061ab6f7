// `wisp simulate`. See simulate.hpp.
#include "wisp/driver/simulate.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "wisp/analysis/timeline.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/driver/exports.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/replay/trust.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/simulation_report.hpp"
#include "wisp/scenario/point_replays.hpp"

namespace wisp::driver {

namespace {

// The platform as a scenario's would be resolved: the file, else calibrated from the trace.
ResolvedPlatform platform_of(const SimulateOptions& o, const Trace& trace) {
  PlatformSpec spec;
  if (!o.platform.empty()) {
    spec.kind = PlatformSpec::Kind::File;
    spec.file = o.platform;
  }
  ResolvedPlatform p = resolve_platform(spec, trace, o.costs == "model");
  for (const std::string& note : p.notes) spdlog::warn("calibration: {}", note);
  if (p.calibration)
    for (const std::string& e : p.calibration->algorithm_evidence) spdlog::info("calibration: {}", e);
  return p;
}

ReplayOptions replay_options_of(const SimulateOptions& o, const CollectiveAlgorithms& algorithms) {
  ReplaySpec spec;
  spec.costs = o.costs;
  spec.eager_threshold = o.eager;
  spec.hostfile = o.hostfile;
  ReplayOptions options = replay_options(spec, algorithms);
  if (!o.coll_algo.empty()) options.algorithms = parse_collective_algorithms(o.coll_algo, algorithms);
  options.zero_communication = o.zero_communication;
  return options;
}

// The measured and the simulated timelines, each with its wait states and critical path.
std::string chrome_trace(const Trace& measured, const Trace& simulated) {
  const Timeline m = build_timeline(measured, analyze_wait_paths(measured));
  const Timeline s = build_timeline(simulated, analyze_wait_paths(simulated));
  return chrome_trace_json({{"measured", &m}, {"simulated", &s}});
}

// A --chrome-trace FILE whose directory is missing is refused before anything is written.
void check_writable(const std::filesystem::path& file) {
  const std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error(fmt::format("--chrome-trace {}: the directory {} does not exist", file.string(), dir.string()));
}

std::vector<std::string> trust_warnings(const Trace& trace, const ReplayResult& result,
                                        const ResidualSummary* residuals) {
  std::vector<std::string> out;
  for (const std::string& w : {identity_warning(identity_error(trace.end_time(), result.runtime), residuals),
                               hybrid_warning(trace), placement_warning(result.statistics, "")})
    if (!w.empty()) out.push_back(w);
  return out;
}

}  // namespace

Written simulate(const SimulateOptions& o) {
  if (!o.chrome_trace.empty()) check_writable(o.chrome_trace);
  const std::vector<ExportRequest> exports = export_requests(o.exports, o.export_collectives, o.export_time_unit);
  check_export_paths(exports, o.force);
  const Trace trace = read_otf2(o.trace);
  const ResolvedPlatform platform = platform_of(o, trace);
  const ReplayOptions options = replay_options_of(o, platform.algorithms);
  ReplayResult result;
  try {
    result = replay(trace, platform.platform, options);
  } catch (const ReplayDeadlock& e) {
    throw Error(o.trace.string() + ": " + e.what());
  }
  const std::string chrome = o.chrome_trace.empty() ? std::string() : chrome_trace(trace, result.trace);
  WriteOptions w;
  w.force = o.force;
  w.creator = "wisp simulate";
  w.description = "simulated replay of " + o.trace.string();
  Written out;
  write_exports(trace, platform.platform, options, result.statistics, exports, o.force, out);
  write_otf2(result.trace, o.output, w);
  std::optional<ResidualSummary> residuals;
  if (result.residuals) residuals = summarize(trace, *result.residuals);
  const ResidualSummary* summary = residuals ? &*residuals : nullptr;
  out.text =
      simulation_setup_text(platform.description, platform.calibration ? &*platform.calibration : nullptr, options) +
      simulation_comparison_text(trace, result, summary);
  for (std::string& line : trust_warnings(trace, result, summary)) out.warnings.push_back(std::move(line));
  if (const std::string lacking = records_not_written(trace); !lacking.empty())
    out.warnings.push_back(o.output.string() + ": the simulated trace lacks records wisp does not keep: " + lacking);
  if (!o.chrome_trace.empty()) {
    write_file_atomically(o.chrome_trace, chrome);
    out.after += "wrote " + o.chrome_trace.string() + "\n";
  }
  const ReplayStatistics& s = result.statistics;
  spdlog::info(
      "replayed {} events ({} MPI operations, {} messages, {} of them on fixed routes timed by {} probes) in "
      "{:.3f} s of simulation",
      s.events, s.mpi_operations, s.messages, s.without_activity, s.probes, s.simulation_seconds);
  out.after += "wrote " + o.output.string() + "\n";
  return out;
}

}  // namespace wisp::driver
