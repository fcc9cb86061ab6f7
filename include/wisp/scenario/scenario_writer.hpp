// A Scenario written back as a YAML scenario file (schema `wisp: 1`) that load_scenario() reads
// into the same scenario: how `wisp suggest` hands its hypotheses to users to rerun and refine.
// Paths are written absolute, so the file runs from wherever it is moved.
#pragma once

#include <string>
#include <vector>

#include "wisp/scenario/scenario.hpp"

namespace wisp {

// The scenario as YAML text: name, description, trace, platform, replay, transforms and (when
// not all) analyses; `comments` open the file as `# ...` lines. Sweeps and output are not written.
std::string scenario_yaml(const Scenario& scenario, const std::vector<std::string>& comments = {});

}  // namespace wisp
