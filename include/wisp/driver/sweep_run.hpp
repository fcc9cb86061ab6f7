// A sweep run: every point of a scenario's axes replayed next to the identity run it shares with
// the points of the same platform, in up to N worker processes (SimGrid runs one engine per process).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp {

// Identity runs by identity_key(): made once, in the parent, and shared by every point (and every
// later batch of points) whose platform and replay options agree.
using IdentityRuns = std::map<std::string, IdentityRun>;

// How a batch of scenario points runs (run_points).
struct PointsOptions {
  int jobs = 1;                        // worker processes at a time
  bool write_traces = false;           // each worker leaves its scenario trace in point_dir(dir, i)/trace
  bool transform_errors_fail = false;  // a point whose transforms fail is a failed row (else: thrown)
  // Called in the parent as each point finishes (index into `points`), e.g. to keep its row on disk.
  std::function<void(std::size_t, const SweepRow&)> on_row;
  // A first pass without the gain interval: each row also carries its gain's variability ...
  bool variability = false;
  // ... and a second pass, given those rows (one per point), replays only the interval's hypotheses.
  const std::vector<SweepRow>* known = nullptr;
};

// Runs every point in a worker process next to its shared identity run; a point whose replay fails
// (deadlock, platform error) is a row with its error and the others still run. Work directories
// are point_dir(dir, i); without write_traces nothing is left in `dir`. The rows are SweepRows
// without axis values.
std::vector<SweepRow> run_points(const std::vector<Scenario>& points, const Trace& measured,
                                 const PointsOptions& options, const std::filesystem::path& dir,
                                 IdentityRuns& identities);
std::filesystem::path point_dir(const std::filesystem::path& dir, std::size_t i);

// Runs every point with `jobs` workers; each point's transforms are applied once, in the parent
// just before its worker starts (a transform error ends the sweep with that error). The best
// point's scenario trace is left in `dir`/scenario-trace and its identity trace in `dir`/identity-trace
// (and its cubes, below); nothing else is left in `dir`.
// With `cubes`, the best point is evaluated once more for its identity, scenario and difference
// cubes (point_cubes.hpp; warnings logged).
SweepResult run_sweep(const Scenario& scenario, const Trace& measured, int jobs, const std::filesystem::path& dir,
                      bool cubes = true);

}  // namespace wisp
