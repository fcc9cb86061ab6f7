// See exports.hpp.
#include "wisp/driver/exports.hpp"

#include <fmt/format.h>

#include "wisp/error.hpp"
#include "wisp/replay/export.hpp"

namespace wisp::driver {

std::vector<ExportRequest> export_requests(const std::vector<std::string>& pairs, const std::string& collectives,
                                           const std::string& time_unit) {
  std::vector<ExportRequest> out;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
    if (pairs[i] != "smpi-ti" && pairs[i] != "goal")
      throw Error(fmt::format("--export {}: unknown format (expected smpi-ti or goal)", pairs[i]));
    if (pairs[i + 1].empty()) throw Error(fmt::format("--export {}: the path is empty", pairs[i]));
    out.push_back(ExportRequest{pairs[i], pairs[i + 1], collectives == "messages", time_unit == "ps"});
  }
  return out;
}

void check_export_paths(const std::vector<ExportRequest>& requests, bool force) {
  namespace fs = std::filesystem;
  for (const ExportRequest& r : requests) {
    const fs::path dir = fs::absolute(r.path).parent_path();
    if (!fs::is_directory(dir))
      throw Error(
          fmt::format("--export {} {}: the directory {} does not exist", r.format, r.path.string(), dir.string()));
    if (r.format == "smpi-ti" && !force && fs::exists(r.path) && (!fs::is_directory(r.path) || !fs::is_empty(r.path)))
      throw Error(
          fmt::format("--export smpi-ti {}: exists and is not empty (use --force to replace it)", r.path.string()));
    if (r.format == "goal" && fs::is_directory(r.path))
      throw Error(fmt::format("--export goal {}: is a directory", r.path.string()));
  }
}

void write_exports(const Trace& trace, const Platform& platform, const ReplayOptions& options,
                   const ReplayStatistics& stats, const std::vector<ExportRequest>& requests, bool force,
                   Written& out) {
  ExportPlatform p;
  p.reference_speed = stats.reference_speed;
  p.latency = stats.route_latency;
  p.bandwidth = stats.route_bandwidth;
  p.mpi = platform.mpi;
  if (options.eager_threshold) p.mpi.eager_threshold = *options.eager_threshold;
  p.platform_file = platform.file;
  if (platform.file.empty()) {
    Platform generated = platform;
    if (generated.hosts == 0) generated.hosts = trace.rank_count();  // one host per rank
    p.platform_xml = platform_xml(generated);
  }
  p.rank_hosts = stats.rank_hosts;
  p.size_factors = platform.size_factors;
  for (const ExportRequest& r : requests) {
    ExportOptions o;
    o.algorithms = options.algorithms;
    o.collectives_as_messages = r.collectives_as_messages;
    o.picoseconds = r.picoseconds;
    const ExportResult e =
        r.format == "goal" ? export_goal(trace, p, o, r.path) : export_smpi_ti(trace, p, o, r.path, force);
    out.after += fmt::format("wrote {} ({} {} operations{})\n", r.path.string(), e.operations, r.format,
                             e.format == "goal" ? fmt::format(", {} dependencies", e.dependencies) : "");
    const std::vector<std::string> left = e.left_out.names();
    if (!left.empty()) {
      std::string joined;
      for (const std::string& l : left) joined += (joined.empty() ? "" : "; ") + l;
      out.warnings.push_back(fmt::format("{}: the {} export leaves out what the format cannot express: {}",
                                         r.path.string(), r.format, joined));
    }
  }
}

}  // namespace wisp::driver
