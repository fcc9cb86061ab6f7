// Rebalancing the threads of a parallel region (hybrid traces): in each instance, every thread of
// the team gets the team's mean work, so the team meets at its barrier when the mean is done
// instead of the slowest thread; the master's visit of the region shortens by max − mean.
#pragma once

#include <vector>

#include "wisp/scenario/selection.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// The work of one instance's team: per thread, the time from its enter of the region to its first
// OpenMP barrier in it (the whole visit when it has none).
struct TeamWork {
  double max = 0;
  double mean = 0;
  std::size_t threads = 0;  // the master and the other threads that visited the region meanwhile
};

// For every visit (on a master thread), its team's work.
std::vector<TeamWork> team_work(const Trace& trace, const std::vector<Visit>& visits);

}  // namespace wisp
