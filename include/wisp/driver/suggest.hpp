// `wisp suggest TRACE|SCENARIO.yaml`: hypotheses generated from the analyses, simulated against one
// identity replay and ranked by gain (driver/suggest_run.hpp), written as suggest.json/.txt,
// report.html and one scenario file per hypothesis (hypotheses/NN-name.yaml).
#pragma once

#include <filesystem>
#include <string>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct SuggestVerbOptions {
  std::filesystem::path input;   // an OTF2 trace, or a scenario file naming trace and platform
  std::filesystem::path output;  // default: wisp-suggest-NAME
  std::string platform;          // trace input: "calibrated" (default) or a SimGrid XML file
  int jobs = 1;                  // hypotheses simulated in parallel
  std::size_t top = 3;           // call paths taken from each indicator
  bool force = false;
  bool no_interval = false;  // skip each hypothesis' gain interval
};

// Under mpirun/srun rank 0 analyses and ranks, the others simulate candidates (and return an empty
// Written). Throws wisp::Error.
Written suggest(const SuggestVerbOptions& options);

}  // namespace wisp::driver
