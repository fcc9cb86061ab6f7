// How far to trust a replay of a measured trace: the identity error (simulated − measured
// runtime, relative) and, when it is above 5 %, one line saying what that means and what to try.
// `wisp simulate` and `wisp run` print both; their JSON carries the error.
#pragma once

#include <string>

#include "wisp/replay/replay.hpp"
#include "wisp/replay/residuals.hpp"

namespace wisp {

inline constexpr double kLowTrustError = 0.05;

// Relative error of the identity replay's runtime against the measured one (0 if none measured).
double identity_error(double measured, double identity);

// Empty when |error| ≤ kLowTrustError; else one line (callers prefix "warning: "). `residuals` (anchored
// replays) tells how many calls fell back to the model.
std::string identity_warning(double error, const ResidualSummary* residuals);

// Empty for single-threaded ranks; for hybrid traces one line saying that the master threads are
// replayed (their parallel regions are computation) and the other locations follow them.
std::string hybrid_warning(const Trace& trace);

// Empty when every rank has a core of its own on its host; else one line: ranks share cores of the
// platform (fewer hosts or cores than ranks), so their computation slows; `replay` names the
// replay ("identity", "scenario"; empty: the only one).
std::string placement_warning(const ReplayStatistics& stats, const std::string& replay);

}  // namespace wisp
