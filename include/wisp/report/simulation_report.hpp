// `wisp simulate`'s text: the platform and replay options it used, then measured against simulated
// end per rank, the identity error and the residuals (traced MPI time the model does not explain).
#pragma once

#include <string>

#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/replay/residuals.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// "platform", "collectives" and "costs" lines: the platform's description, else the calibration.
std::string simulation_setup_text(const std::string& platform, const Calibration* calibration,
                                  const ReplayOptions& options);
// `residuals`: what the trace-anchored replay left per class (none: model-only costs).
std::string simulation_comparison_text(const Trace& measured, const ReplayResult& result,
                                       const ResidualSummary* residuals);

}  // namespace wisp
