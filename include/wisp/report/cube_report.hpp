// Cube 4 reports (.cubex) for Scalasca users: an analysis's metrics on the trace's call tree and
// system tree, opened with CubeGUI, cube_dump or pycubexr; and the difference of two analyses of
// the same program (scenario - identity per metric, call path and location, as cube_diff makes it).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "wisp/analysis/metric_table.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// The values a cube holds: the analysis's metric table (what `wisp analyze --json` lists under
// "metrics"), then MBM per call path (mbm_k, mbm_all; on rank 0: they belong to no rank), the
// minimum-based waiting-time estimate per call path and rank (estimated_wait) and the POP factors
// of the whole run (on the program root, rank 0).
MetricTable cube_table(const TraceSummary& trace, const TraceAnalysis& analysis);

// scenario - identity per metric, call path (matched by name) and rank, on `scenario`'s call
// paths. `missing` counts the identity's values on call paths the scenario trace does not have.
MetricTable difference_table(const TraceSummary& identity_trace, const MetricTable& identity,
                             const TraceSummary& scenario_trace, const MetricTable& scenario, std::size_t& missing);

// Writes `table` (call-path-exclusive values per rank) as a Cube 4 archive at `file`, completely
// or not at all: the metric tree from the metric catalogue (a metric's stored values are its own
// minus its children's, so that Cube's metric-inclusive view shows wisp's values; POP's ratios are
// roots), the call tree under a root named after the program, the system tree of the trace
// (machine, nodes, one process per rank with its threads and streams; values on the masters).
// Returns a one-line warning naming what Cube cannot hold (values that are not finite, written as
// 0), "" if nothing.
std::string write_cube(const std::filesystem::path& file, const TraceSummary& trace, const MetricTable& table,
                       const std::string& creator);

}  // namespace wisp
