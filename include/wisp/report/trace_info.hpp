// What `wisp info` reports about a trace: ranks, events by kind, regions, communicators,
// duration, messages, collectives, anomalies and skipped records; as text and as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/trace/trace.hpp"

namespace wisp {

// Holds the flat profile too ("flat_profile", below).
nlohmann::json trace_info_json(const Trace& trace, const std::string& source);
std::string trace_info_text(const Trace& trace, const std::string& source);

// `wisp info --regions`: per region (flat_profile.hpp) its exclusive time summed over ranks, its
// share of all ranks' time, the rank with the most and its time, visits, paradigm; most time first.
// JSON: {"time": "exclusive", "total": s, "rows": [{"region", "short_name", "paradigm", "visits",
// "exclusive_time", "max_rank_time", "max_rank", "share"}]}.
nlohmann::json flat_profile_json(const Trace& trace);
std::string flat_profile_text(const Trace& trace, const std::string& source);

}  // namespace wisp
