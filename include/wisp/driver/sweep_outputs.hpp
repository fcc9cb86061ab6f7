// What `wisp run` and `wisp merge` write for a sweep (one place, so that a merged sweep is the
// same files as one run): sweep.csv, report.html, report.json and report.txt.
#pragma once

#include <string>

#include "wisp/driver/written.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp::driver {

// The files into `out`, committed; the report to print, and the failed points' line if any.
Written write_sweep_outputs(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep,
                            AtomicDirectory& out);

}  // namespace wisp::driver
