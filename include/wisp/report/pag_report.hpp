// Reports of the program-activity-graph analyses: the `pag` and `mbm` sections of
// `wisp analyze --json`, and text tables (near-critical paths; MBM next to the critical-path share
// like paper 001's Tables 6-8).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <limits>
#include <string>

#include "wisp/analysis/pag_analysis.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// Display name of a call path of an activity graph ("(launch)", "(no region)" for the labels
// that are not call paths).
std::string activity_callpath_name(const Definitions& defs, CallpathId callpath);

// {"critical_path_length": s, "nc_percent": x, "more_available": b,
//  "paths": [{"duration": s, "nc_percent": x, "callpaths": {"main/foo": s, ...}}, ...]}
nlohmann::json pag_json(const TraceSummary& trace, const PagAnalysis& analysis);
// [{"callpath": "main/foo", "critical_path": s, "mbm_k": s, "mbm_all": s}, ...]
nlohmann::json mbm_json(const TraceSummary& trace, const PagAnalysis& analysis);

// The first `max_paths` paths (all by default), then a line saying how many more there are.
std::string near_critical_text(const TraceSummary& trace, const PagAnalysis& analysis,
                               std::size_t max_paths = std::numeric_limits<std::size_t>::max());
// The first `top` MBM rows (by critical-path time; all by default).
std::string mbm_text(const TraceSummary& trace, const PagAnalysis& analysis,
                     std::size_t top = std::numeric_limits<std::size_t>::max());

}  // namespace wisp
