// The flat profile of a trace (what `wisp info --regions` prints): per region its visits and
// exclusive time over all call paths, summed over ranks and on the rank that spends most, so that
// a user finds the names a scenario's `region:` can select and what they cost.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

struct RegionProfileRow {
  RegionId region = kNone;
  std::uint64_t visits = 0;  // Enter events, all ranks
  double time = 0;           // exclusive seconds, summed over ranks (master threads)
  double max_time = 0;       // exclusive seconds on the rank with the most
  Rank max_rank = kNone;
};

struct FlatProfile {
  std::vector<RegionProfileRow> rows;  // regions with visits, most time first (then by name)
  double total = 0;                    // exclusive time of every region and of the time outside them, all ranks
};

// Exclusive time as compute_profile() counts it (profile.hpp), aggregated over the call paths of
// each region: recursion and several call sites add up without counting time twice.
FlatProfile flat_profile(const Trace& trace);

}  // namespace wisp
