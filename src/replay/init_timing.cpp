// See init_timing.hpp.
#include "init_timing.hpp"

#include <algorithm>

namespace wisp::replay_impl {

InitTiming init_timing(const Trace& trace, const std::vector<double>& overhead_of_region) {
  const Rank P = trace.rank_count();
  InitTiming t;
  t.enter.assign(P, -1);
  t.overhead.assign(P, 0);
  t.traced_cost.assign(P, 0);
  std::vector<double> leave(P, -1);
  double last_enter = -1;
  for (Rank r = 0; r < P; ++r) {
    const RankTrace& rt = trace.ranks[r];
    for (const CallSpan& call : rt.mpi_calls) {
      const RegionId reg = trace.defs.callpaths[rt.events[call.enter].callpath()].region;
      const MpiFunction f = trace.defs.regions[reg].mpi;
      if (f != MpiFunction::Init && f != MpiFunction::InitThread) continue;
      t.enter[r] = rt.events[call.enter].time;
      leave[r] = rt.events[call.leave].time;
      t.overhead[r] = overhead_of_region[reg];
      ++t.ranks;
      last_enter = std::max(last_enter, t.enter[r]);
      break;
    }
  }
  for (Rank r = 0; r < P; ++r)
    if (t.enter[r] >= 0) t.traced_cost[r] = std::max(0.0, leave[r] - last_enter - t.overhead[r]);
  return t;
}

}  // namespace wisp::replay_impl
