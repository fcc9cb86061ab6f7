// What a platform change can move. With trace-anchored costs every MPI call keeps its traced cost:
// the network model computes a part of it and the rest (the residual) is kept as fixed cost, so
// latency, bandwidth and speed factors act on the model's part only. Said for every platform
// what-if, and warned about when the model explains less than half of the traced MPI time.
#pragma once

#include <optional>
#include <string>

#include "wisp/replay/residuals.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp {

struct PlatformReach {
  double traced = 0;    // traced duration of the MPI calls that communicate [s]
  double modelled = 0;  // the network model's part of it: traced - residual [s]
  double share() const { return traced > 0 ? modelled / traced : 0; }
};

// Whether the scenario changes the platform: a platform transform, or a sweep over one.
bool changes_platform(const Scenario& scenario);
// The reach of the identity's residuals (none without them: model-only costs move everything).
std::optional<PlatformReach> platform_reach(const std::optional<ResidualSummary>& residuals);
// "platform changes act on 5.21 s of 12.09 s traced MPI time (43.1 %) ..." for the reports.
std::string platform_reach_text(const PlatformReach& reach);
// One line (without "warning: ") when the share is below half, else empty.
std::string platform_reach_warning(const PlatformReach& reach);

}  // namespace wisp
