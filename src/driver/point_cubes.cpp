// A what-if point's cubes. See point_cubes.hpp.
#include "wisp/driver/point_cubes.hpp"

#include <fmt/format.h>

#include "wisp/report/cube_report.hpp"

namespace wisp::driver {

std::vector<std::string> write_point_cubes(const PointEvaluation& point, const std::filesystem::path& dir,
                                           const std::string& creator) {
  const TraceSummary& identity_trace = point.identity_trace;
  const TraceSummary& scenario_trace = point.scenario_trace;
  const MetricTable identity = cube_table(identity_trace, point.identity);
  const MetricTable scenario = cube_table(scenario_trace, point.scenario);
  std::size_t missing = 0;
  const MetricTable difference = difference_table(identity_trace, identity, scenario_trace, scenario, missing);
  std::vector<std::string> warnings;
  for (const auto& [file, trace, table] : {std::tuple{"identity.cubex", &identity_trace, &identity},
                                           std::tuple{"scenario.cubex", &scenario_trace, &scenario},
                                           std::tuple{"difference.cubex", &scenario_trace, &difference}})
    if (std::string w = write_cube(dir / file, *trace, *table, creator); !w.empty()) warnings.push_back(std::move(w));
  if (missing)
    warnings.push_back(fmt::format("{}: {} identity value(s) on call paths the scenario trace lacks are left out",
                                   (dir / "difference.cubex").string(), missing));
  return warnings;
}

}  // namespace wisp::driver
