// Report of the minimum-based wait-state estimate. See wait_estimate_report.hpp.
#include "wisp/report/wait_estimate_report.hpp"

#include <fmt/format.h>

namespace wisp {

nlohmann::json wait_estimate_json(const TraceSummary& trace, const WaitEstimate& estimate) {
  nlohmann::json rows = nlohmann::json::array();
  for (const WaitEstimateRow& r : estimate.rows) {
    nlohmann::json row = {{"callpath", trace.defs.callpath_name(r.callpath)},
                          {"rank", r.rank},
                          {"estimated", r.estimated},
                          {"trace_based", nullptr},
                          {"pattern", std::string(to_string(r.pattern))},
                          {"visits", r.visits},
                          {"time", r.time}};
    if (r.trace_based) row["trace_based"] = *r.trace_based;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string wait_estimate_text(const TraceSummary& trace, const WaitEstimate& estimate, double threshold) {
  std::string out = fmt::format(
      "Minimum-based wait-state estimate (paper 002): wait ratios of at least {:.2f} % of the allocation time {:.6f} "
      "s\n",
      100 * threshold, estimate.allocation_time);
  out += fmt::format("  {:<16} {:>10} {:>12}  {}\n", "pattern", "estimated", "trace-based", "call path");
  const std::vector<WaitRatio> ratios = wait_ratios(estimate, threshold);
  if (ratios.empty()) out += "  none\n";
  for (const WaitRatio& r : ratios)
    out += fmt::format("  {:<16} {:>9.3f}% {:>12}  {}\n", to_string(r.pattern), 100 * r.estimated,
                       r.trace_based ? fmt::format("{:.3f}%", 100 * *r.trace_based) : "-",
                       trace.defs.callpath_name(r.callpath));
  return out;
}

}  // namespace wisp
