// `wisp analyze TRACE`: the wait-path analysis (wait states, critical path with imbalance and
// performance impact, delay costs) and the activity-graph analyses (near-critical paths and MBM,
// minimum-based wait estimate, POP factors over time), optionally written to a directory
// (analysis.json, analysis.txt, pop_windows.csv, report.html) and as a Chrome trace.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct AnalyzeOptions {
  std::filesystem::path trace;
  std::filesystem::path partitions;    // lines "name: ranks" (default: derived from user call paths)
  std::filesystem::path output;        // also write the directory
  std::filesystem::path chrome_trace;  // also write the timeline
  bool force = false;
  bool detail = false;        // JSON: the per-segment lists (critical-path segments); text: every metric
  std::string html_window;    // "START:END" [s]: report-window.html shows it (report_views.hpp)
  double html_limit_mb = 20;  // report.html's size limit [MB] (report_views.hpp)
  bool no_cube = false;       // the output directory without analysis.cubex
  // Integers are signed, so that a negative value is an error rather than a huge number.
  long long top = 20;                    // rows per table in the text
  std::optional<long long> k;            // near-critical paths: the K longest
  std::optional<double> nc;              // ... within this percentage of the critical path
  std::optional<double> window;          // POP windows of fixed length [s]
  std::optional<long long> min_events;   // merge POP windows until every rank has N MPI events
  std::string ideal_network = "clock";   // or "simgrid"
  std::string delay_rules = "scalasca";  // or "paper"
  long long eager_limit = 65536;         // largest message the ideal network sends eagerly [bytes]
  std::string analyses;                  // comma-separated analysis keys (metric_catalogue.hpp); empty: all
};

// Options are checked before the trace is read; throws wisp::Error naming a bad value. Launched by
// mpirun/srun, the trace and every analysis are spread over the job's processes (each reads and
// analyses a share of the ranks, as Scalasca's parallel replay), and process 0 reports and writes
// -o; --chrome-trace and --ideal-network simgrid need the whole trace in one process and are refused.
Written analyze(const AnalyzeOptions& options);

}  // namespace wisp::driver
