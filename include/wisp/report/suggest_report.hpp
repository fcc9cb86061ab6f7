// What `wisp suggest` reports, rendered from suggest_run.hpp's result: the identity's trust, then
// one row per hypothesis (rank, hypothesis, the indicator that proposed it and its value, the
// simulated gain, the indicator's over- or underestimate) as text (suggest.txt) and JSON (suggest.json).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/scenario/suggestion.hpp"

namespace wisp {

// suggest.json's schema version (its fields: scenarios/README.md, "wisp suggest").
inline constexpr int kSuggestSchema = 2;

nlohmann::json suggest_json(const SuggestResult& result);
std::string suggest_text(const SuggestResult& result);

}  // namespace wisp
