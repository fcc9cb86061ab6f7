// What `wisp run` reports, rendered from what the scenario layer computed: for one point the
// runtimes (measured, identity, scenario), the gain, the trust in it, what each transform did and
// per call path the metrics before and after (evaluate.hpp); for a sweep one row per point
// (sweep.hpp). JSON (report.json), text (report.txt, the terminal) and CSV (sweep.csv).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/sweep.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp {

nlohmann::json point_json(const Scenario& scenario, const ScenarioTrace& input, const PointEvaluation& point);
std::string point_text(const Scenario& scenario, const ScenarioTrace& input, const PointEvaluation& point);

// sweep.csv: point, one column per axis, measured, identity, scenario, gain_seconds, gain_percent, error.
std::string sweep_csv(const Scenario& scenario, const SweepResult& sweep);
// The axes, one record per point (runtimes and gain, or its error), the best point.
nlohmann::json sweep_json(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep);
std::string sweep_text(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep);

}  // namespace wisp
