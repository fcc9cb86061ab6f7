// A sweep: every point of a scenario's axes replayed next to the identity run it shares with the
// points of the same platform, in up to N worker processes (SimGrid runs one engine per process).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "wisp/scenario/run.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// One point of a sweep: its axis values and runtimes, or why it failed.
struct SweepRow : Runtimes {
  std::vector<std::string> values;  // per axis, as written in the scenario
  std::string name;
  std::string error;                // non-empty if the point failed
};

struct SweepResult {
  std::vector<SweepRow> rows;       // in point order
  std::optional<std::size_t> best;  // the point with the shortest scenario runtime
  std::size_t failed() const;
};

// Runs every point with `jobs` workers; each point's transforms are applied once, in the parent
// just before its worker starts (a transform error ends the sweep with that error). The best
// point's scenario trace is left in `dir`/scenario-trace and its identity trace in `dir`/identity-trace;
// nothing else is left in `dir`.
SweepResult run_sweep(const Scenario& scenario, const Trace& measured, int jobs, const std::filesystem::path& dir);

}  // namespace wisp
