// `wisp calibrate TRACE -o platform.xml`: latency, bandwidth, per-call overheads, the eager
// threshold and typical call costs fitted to the trace (paper 002's minimum durations), written
// as a SimGrid platform file.
#pragma once

#include <filesystem>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct CalibrateOptions {
  std::filesystem::path trace;
  std::filesystem::path output;  // the platform XML file
  bool force = false;            // replace an existing file
};

Written calibrate(const CalibrateOptions& options);

}  // namespace wisp::driver
