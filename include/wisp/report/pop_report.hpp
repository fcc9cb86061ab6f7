// Report of the POP factors: the `pop` section of `wisp analyze --json` (whole run and windows),
// the windows as CSV, and a text summary. Undefined factors (NaN) are null in JSON, empty in CSV.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "wisp/analysis/pop_analysis.hpp"

namespace wisp {

// {"load_balance": x, "serialisation": x, "transfer": x, "parallel_efficiency": x,
//  "communication_efficiency": x, "elapsed": s, "ideal_runtime": s, "ideal_runtime_source": ...,
//  "clock_replay_ideal_runtime": s, "mean_useful": s, "max_useful": s,
//  "window_length": s, "window_min_events": n (with windows),
//  "windows": [{"start": s, "end": s, "load_balance": x, ...}, ...]}
nlohmann::json pop_json(const PopAnalysis& analysis);
// Header: start,end,load_balance,serialisation,transfer,parallel_efficiency,
//         communication_efficiency,ideal,mean_useful,max_useful,min_events
std::string pop_windows_csv(const std::vector<PopWindow>& windows);
// The whole-run factors and, if there are windows, pop_windows_text().
std::string pop_text(const PopAnalysis& analysis, std::size_t top = 8);
// A short summary of the windows: how they were made, min / median / max of each factor, and the
// `top` windows with the lowest parallel efficiency.
std::string pop_windows_text(const PopAnalysis& analysis, std::size_t top = 8);

}  // namespace wisp
