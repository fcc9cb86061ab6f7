// MPI_Init as the replay synchronises it: every rank that calls it is ready at its enter plus the
// overhead and leaves at the last rank's ready time plus its Init cost. The traced cost is the
// rank's leave minus the last rank's enter minus the overhead (so the identity keeps its leaves).
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp::replay_impl {

struct InitTiming {
  std::vector<double> enter;        // by rank: traced enter of MPI_Init (-1: no Init)
  std::vector<double> overhead;     // by rank: the overhead of its Init region
  std::vector<double> traced_cost;  // by rank: leave − last enter − overhead (≥ 0)
  std::uint32_t ranks = 0;          // ranks that call MPI_Init
};
InitTiming init_timing(const Trace& trace, const std::vector<double>& overhead_of_region);

}  // namespace wisp::replay_impl
