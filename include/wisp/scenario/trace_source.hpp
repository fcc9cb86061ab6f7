// A scenario's trace, read from its OTF2 archive or generated in memory from its `generate:`
// command line — resolved here, so that the scenario layer loads its own input.
#pragma once

#include <filesystem>
#include <string>

#include "wisp/scenario/scenario.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct ScenarioTrace {
  Trace trace;
  std::string source;             // the path, or "generate <command line>", for reports
  std::filesystem::path archive;  // the OTF2 anchor it was read from (empty: generated)
};

// Errors name the scenario file and the place of its `trace:` entry.
ScenarioTrace load_trace(const Scenario& scenario);

}  // namespace wisp
