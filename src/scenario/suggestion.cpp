// A suggestion's indicator against its simulated gain. See suggestion.hpp.
#include "wisp/scenario/suggestion.hpp"

#include <cmath>

namespace wisp {

std::optional<double> Suggestion::overestimate() const {
  if (failed() || !hypothesis.indicator.value) return std::nullopt;
  return *hypothesis.indicator.value - run.gain();
}

bool Suggestion::measurable() const {
  if (failed() || run.gain() <= noise_share * run.identity) return false;
  return std::isnan(run.interval_high) || run.interval_high > 0;
}

std::optional<double> Suggestion::ratio() const {
  if (failed() || !hypothesis.indicator.value || std::abs(run.gain_percent()) < 0.01) return std::nullopt;
  return *hypothesis.indicator.value / run.gain();
}

}  // namespace wisp
