// Runs one replay in the current process with a SimGrid engine. SimGrid allows one engine per
// process: only replay() calls this, in a forked child (replay.cpp).
#pragma once

#include <vector>

#include "wisp/replay/replay.hpp"

namespace wisp::replay_impl {

struct SimulationOutcome {
  std::vector<std::vector<double>> times;      // by rank, by event
  std::vector<std::vector<double>> residuals;  // anchored replays: by rank, by MPI call
  AnchoredCalls calls;                         // anchored replays: every MPI call's enter and model end
  bool deadlock = false;
  double deadlock_time = 0;
  std::vector<BlockedRank> blocked;
  ReplayStatistics stats;
};

// `runtime_only`: of each rank's times the last only (no table of every event's time).
SimulationOutcome simulate(const Trace& trace, const Platform& platform, const ReplayOptions& options,
                           bool runtime_only = false);

}  // namespace wisp::replay_impl
