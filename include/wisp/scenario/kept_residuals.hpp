// Trust in anchored mode: how much of the scenario's critical path runs through residual time kept
// as fixed cost of its calls. The identity error is zero by construction with trace-anchored costs;
// a scenario whose critical path runs through kept residuals rests on costs the model cannot move.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wisp/analysis/path_segment.hpp"
#include "wisp/replay/residuals.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

inline constexpr double kKeptResidualWarning = 0.10;

// Share of `length` (the critical path's, waiting excluded) that `segments` spend inside the kept
// part of a call's residual: the last (residual − partner wait) seconds before the call's leave in
// the scenario's trace. Unset without residuals or without a path.
std::optional<double> kept_residual_share(const Trace& scenario, const CallResiduals& residuals,
                                          const std::vector<PathSegment>& segments, double length);

// One line (without "warning: ") when the share is above kKeptResidualWarning.
std::string kept_residual_warning(double share);

}  // namespace wisp
