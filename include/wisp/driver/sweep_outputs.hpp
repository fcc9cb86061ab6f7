// What `wisp run` and `wisp merge` write: report.json and report.txt of a point or a sweep, and a
// sweep's sweep.csv and report.html (one place, so that a merged sweep is the same files as one run).
#pragma once

#include <string>

#include "wisp/driver/written.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp::driver {

// report.json (compact: it is for programs; the command line prints it indented) and report.txt
// into `out`, committed: the end of every `wisp run` and `wisp merge`.
Written commit_report(const nlohmann::json& json, const std::string& text, AtomicDirectory& out);

// The files into `out`, committed; the report to print, and the failed points' line if any.
Written write_sweep_outputs(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep,
                            AtomicDirectory& out);

}  // namespace wisp::driver
