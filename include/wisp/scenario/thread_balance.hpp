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
  std::size_t threads = 0;   // the master and the other threads that visited the region meanwhile
  std::vector<double> work;  // the master's, then each such thread's
};

// For every visit (on a master thread), its team's work.
std::vector<TeamWork> team_work(const Trace& trace, const std::vector<Visit>& visits);

// After the masters' visits were shortened to the balanced team's (retime), every member's work in
// each visit becomes its team's mean: the part from its enter of the region to its first OpenMP
// barrier is stretched to the mean, the barrier to what is left of the visit (the master's events
// too, unless the visit holds an MPI call: the replay times those). Thread records move alike.
void balance_team_events(Trace& retimed, const std::vector<Visit>& visits, const std::vector<TeamWork>& teams);

}  // namespace wisp
