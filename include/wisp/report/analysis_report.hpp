// What `wisp analyze` reports: text tables of the top call paths per analysis (Scalasca metric
// names), and the JSON document {"trace", "ranks", "runtime", "metrics": [...], ...}: "metrics" is
// the tidy table (one object per non-zero (metric, callpath, rank)); further analyses add their
// own top-level sections next to it (see src/report/README.md, "JSON schema").
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/analysis/metric_table.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// [{"metric": ..., "callpath": ..., "rank": r, "value": v}, ...] in table order.
nlohmann::json metrics_json(const TraceSummary& trace, const MetricTable& table);

// [{"rank", "callpath", "start", "end"}, ...]: one record per critical-path segment.
nlohmann::json segments_json(const TraceSummary& trace, const std::vector<PathSegment>& segments);

// The whole document: trace, ranks, runtime, metrics, critical_path (length, start rank, segment
// count; the segments themselves only with `detail`), delay_accounting, partitions.
nlohmann::json analysis_json(const TraceSummary& trace, const std::string& source, const WaitPathAnalysis& analysis,
                             const MetricTable& table, bool detail = false);

// Human-readable tables, `top` call paths per metric.
// Every metric of the table in the catalogue's tree (Scalasca's, as Cube's metric pane shows it:
// parents before children, each with its total over call paths and ranks and its display name);
// ratios, which do not add up, are left out.
std::string metric_tree_text(const MetricTable& table);

std::string analysis_text(const TraceSummary& trace, const std::string& source, const WaitPathAnalysis& analysis,
                          const MetricTable& table, std::size_t top = 8);

}  // namespace wisp
