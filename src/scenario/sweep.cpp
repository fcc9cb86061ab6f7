// A sweep's points and rows. See sweep.hpp.
#include "wisp/scenario/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace wisp {

namespace {

// The rows of every point, with its axis values as written ("" for an axis it leaves as the scenario
// sets it), before anything runs.
std::vector<SweepRow> rows_of(const Scenario& s, const std::vector<Scenario>& points,
                              const std::vector<std::vector<std::size_t>>& index) {
  std::vector<SweepRow> rows(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    rows[i].name = points[i].name;
    for (std::size_t a = 0; a < s.sweep.size(); ++a)
      rows[i].values.push_back(index[i][a] == kUnset ? "" : YAML::Dump(s.sweep[a].values[index[i][a]]));
  }
  return rows;
}

}  // namespace

std::string row_numbers(const SweepRow& r) {
  const double none = std::nan("");
  const PlatformReach p = r.reach.value_or(PlatformReach{none, none, none, none, none, none});
  return fmt::format(
      "{:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} "
      "{:.17g}",
      r.measured, r.identity, r.scenario, r.interval_low, r.interval_high, r.variability.segments, r.variability.low,
      r.variability.high, r.variability.startup, p.traced, p.network, p.waiting, p.init_finalize, p.residual,
      p.typical);
}

void read_row_numbers(const std::string& text, SweepRow& r) {
  std::istringstream in(text);
  std::string low, high;  // "nan" is text to operator>> of double
  in >> r.measured >> r.identity >> r.scenario >> low >> high;
  if (!low.empty() && !high.empty())
    r.interval_low = std::strtod(low.c_str(), nullptr), r.interval_high = std::strtod(high.c_str(), nullptr);
  GainVariability v;
  if (in >> v.segments >> v.low >> v.high >> v.startup) r.variability = v;
  std::string parts[6];  // "nan" is text to operator>> of double
  if (!(in >> parts[0] >> parts[1] >> parts[2] >> parts[3] >> parts[4] >> parts[5])) return;
  double x[6];
  for (int i = 0; i < 6; ++i) x[i] = std::strtod(parts[i].c_str(), nullptr);
  if (x[0] > 0) r.reach = PlatformReach{x[0], x[1], x[2], x[3], x[4], x[5]};
}

std::optional<std::size_t> best_point(const std::vector<SweepRow>& rows) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].error.empty() && (!best || rows[i].scenario < rows[*best].scenario)) best = i;
  return best;
}

SweepPoints sweep_points_of(const Scenario& s) {
  const auto index = sweep_points(s);
  SweepPoints out;
  for (const auto& i : index) out.points.push_back(sweep_point(s, i));  // every point's keys checked first
  out.rows = rows_of(s, out.points, index);
  return out;
}

std::size_t SweepResult::failed() const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.error.empty(); }));
}

std::optional<std::size_t> SweepResult::gaining_best() const {
  if (!best || !(rows[*best].gain() > 1e-3 * rows[*best].identity)) return std::nullopt;
  return best;
}

std::optional<PlatformReach> SweepResult::platform_reach(const Scenario& scenario) const {
  if (!changes_platform(scenario)) return std::nullopt;
  std::optional<PlatformReach> least;
  for (const SweepRow& r : rows)
    if (r.error.empty() && r.reach && (!least || r.reach->explained() < least->explained())) least = r.reach;
  return least;
}

}  // namespace wisp
