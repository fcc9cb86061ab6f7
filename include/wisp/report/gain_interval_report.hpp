// The gain interval (scenario/gain_interval.hpp) rendered: `"gain_interval": [low_s, high_s]` or
// null, its parts for programs, and one line for people. Shared by wisp run, sweeps and suggest.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/scenario/gain_interval.hpp"

namespace wisp {

nlohmann::json gain_interval_json(const GainInterval& interval);  // [low, high] or null
nlohmann::json gain_interval_json(double low, double high);       // a sweep row's: null if low is NaN
nlohmann::json interval_json(const GainInterval& interval);       // the hypotheses, variability, note
std::string interval_text(const GainInterval& interval);          // one line, no newline

}  // namespace wisp
