// What `wisp run` reports, rendered from what the scenario layer computed: for one point the
// runtimes (measured, identity, scenario), the gain, the trust in it, what each transform did and
// per call path the metrics before and after (evaluate.hpp); for a sweep one row per point
// (sweep.hpp). JSON (report.json), text (report.txt, the terminal) and CSV (sweep.csv).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp {

// How much the single-point report holds.
struct RunReportOptions {
  // report.json: the analyses' per-segment lists (critical-path segments) and their per-rank
  // metric rows ("metrics"; "callpaths" has their sums over ranks) too
  bool detail = false;
  std::size_t top = 20;  // report.txt: non-zero rows per metric of the call-path comparison
  // The screen's text: instead of the per-metric tables, the `changes` largest changes over all
  // metrics (the tables stay in report.txt).
  bool summary = false;
  std::size_t changes = 5;
};

nlohmann::json point_json(const Scenario& scenario, const std::string& trace_source, const PointEvaluation& point,
                          const RunReportOptions& options = {});
// Rows that print as zero in all three columns (measured, identity, scenario: below 0.5 us) are
// left out, and counted; so are the rows beyond options.top of each metric. In summary, only rows
// whose change prints as non-zero, the largest `changes` of them.
std::string point_text(const Scenario& scenario, const std::string& trace_source, const PointEvaluation& point,
                       const RunReportOptions& options = {});

// sweep.csv: point, one column per axis, measured, identity, scenario, gain_seconds, gain_percent, error.
std::string sweep_csv(const Scenario& scenario, const SweepResult& sweep);
// The axes, one record per point (runtimes and gain, or its error), the best point.
nlohmann::json sweep_json(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep);
std::string sweep_text(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep);

}  // namespace wisp
