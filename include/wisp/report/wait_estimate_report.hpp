// Report of the minimum-based wait-state estimate: the `wait_estimate` section of
// `wisp analyze --json` and a text table of wait ratios next to the trace-based ones (002 Fig. 3).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/analysis/wait_estimate.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// [{"callpath": ..., "rank": r, "estimated": s, "trace_based": s | null, "pattern": "Late Sender",
//   "visits": n, "time": s}, ...]
nlohmann::json wait_estimate_json(const TraceSummary& trace, const WaitEstimate& estimate);
// Wait ratios per call path at or above `threshold` (paper: 0.5 %).
std::string wait_estimate_text(const TraceSummary& trace, const WaitEstimate& estimate, double threshold = 0.005);

}  // namespace wisp
