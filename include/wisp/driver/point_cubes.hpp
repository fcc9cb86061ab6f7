// The Cube reports of a what-if point: identity.cubex and scenario.cubex (the analyses of the two
// simulated traces) and difference.cubex (scenario - identity, as cube_diff makes it).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "wisp/scenario/evaluate.hpp"

namespace wisp::driver {

// Writes the three cubes into `dir`; returns one-line warnings (values Cube cannot hold, call paths
// only the identity has).
std::vector<std::string> write_point_cubes(const PointEvaluation& point, const std::filesystem::path& dir,
                                           const std::string& creator);

}  // namespace wisp::driver
