// A sweep's points and their rows (axis values, runtimes, gain interval, error): what the driver
// runs (driver/sweep_run.hpp), keeps in parts (driver/sweep_parts.hpp) and the report renders.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// One point of a sweep: its axis values and runtimes, or why it failed.
struct SweepRow : Runtimes {
  std::vector<std::string> values;                                   // per axis, as written in the scenario
  double interval_low = std::nan(""), interval_high = std::nan("");  // the gain interval; NaN: none
  GainVariability variability;         // of the gain, when asked for without the interval (PointsOptions)
  std::optional<PlatformReach> reach;  // the identity's traced MPI time by part (platform_reach.hpp)
  std::string name;
  std::string error;  // non-empty if the point failed
};

// A row's numbers as the workers send them: "measured identity scenario low high" (NaN: no
// interval), then the variability's "segments low high startup", then the reach's "traced network
// waiting init_finalize residual" MPI time (NaN: none).
std::string row_numbers(const SweepRow& row);
void read_row_numbers(const std::string& text, SweepRow& row);  // what is missing stays as it was

struct SweepResult {
  std::vector<SweepRow> rows;       // in point order
  std::optional<std::size_t> best;  // the point with the shortest scenario runtime
  std::size_t failed() const;
  // The best point, when it gains more than 0.1 % of its identity runtime (else no point is
  // worth claiming: the unchanged run may well be the shortest).
  std::optional<std::size_t> gaining_best() const;
  // For a sweep that changes the platform (changes_platform): the smallest share of the traced MPI
  // cost the network explains (PlatformReach::explained) among its points, for the sweep's reports.
  std::optional<PlatformReach> platform_reach(const Scenario& scenario) const;
};

// Every point of a sweep (all keys checked) and its row with the axis values as written, before
// anything runs.
struct SweepPoints {
  std::vector<Scenario> points;
  std::vector<SweepRow> rows;
};
SweepPoints sweep_points_of(const Scenario& scenario);
// The point with the shortest scenario runtime among those that did not fail.
std::optional<std::size_t> best_point(const std::vector<SweepRow>& rows);

}  // namespace wisp
