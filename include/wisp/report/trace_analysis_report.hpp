// What `wisp analyze` prints and writes for the analyses of trace_analysis.hpp: the wait-path analysis's
// document (analysis_report.hpp) with the sections "pag", "mbm", "wait_estimate" and "pop" next
// to "metrics"; as text, the wait-path analysis's tables followed by the near-critical paths, the MBM next to
// the critical-path share, the wait ratios (estimated vs trace-based) and the POP factors.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// Without `detail` the per-segment lists (critical_path.segments) are left out: they grow with
// the trace, the tables do not.
nlohmann::json trace_analysis_json(const TraceSummary& trace, const std::string& source, const TraceAnalysis& analysis,
                                   bool detail = false);

// The communication matrix: ranks, totals and the pairs as [from, to, messages, bytes].
nlohmann::json communication_json(const CommMatrix& matrix);

// `top` rows per table (call paths, paths, windows); `detail`: also every metric of the table in
// Scalasca's metric tree (metric_tree_text()).
std::string trace_analysis_text(const TraceSummary& trace, const std::string& source, const TraceAnalysis& analysis,
                                std::size_t top = 8, bool detail = false);

// The metric catalogue as a table: name, parent, unit, analysis, description (--list-metrics).
std::string metric_catalogue_text();
// One metric: its names, place in the tree, unit, description, and Scalasca's long description and
// diagnosis (--describe); an unknown name is an Error naming the closest ones.
std::string metric_description_text(std::string_view metric);

}  // namespace wisp
