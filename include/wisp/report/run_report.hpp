// What `wisp run` reports for a scenario: runtimes (measured, identity, scenario), the
// estimated gain identity − scenario, what each transform did, per call path the metrics before
// (identity) and after (scenario) with the measured value beside them, and the full analyses of
// the three traces. As JSON (report.json) and as text (report.txt, the terminal).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "wisp/scenario/run.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp {

struct RunReport {
  nlohmann::json json;
  std::string text;
};

// The report of one scenario point; runs the scenario's analyses on the three traces.
RunReport point_report(const Scenario& scenario, const std::string& trace_source,
                       const Trace& measured, const PointResult& result);

// One row of a sweep: the point's axis values and its runtimes.
struct SweepRow {
  std::vector<std::string> values;  // per axis, as written in the scenario
  std::string name;
  double measured = 0, identity = 0, scenario = 0;
  std::string error;                // non-empty if the point failed
};

// sweep.csv: point, one column per axis, measured, identity, scenario, gain_seconds, gain_percent.
std::string sweep_csv(const Scenario& scenario, const std::vector<SweepRow>& rows);
// The sweep's report: the axes and one record per point (runtimes and gain), the best point.
RunReport sweep_report(const Scenario& scenario, const std::string& trace_source,
                       const std::vector<SweepRow>& rows);

}  // namespace wisp
