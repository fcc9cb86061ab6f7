// `rebalance` in mode `callpaths`: a decomposition balanced phase by phase. Inside the selected
// visits every call path's k-th visit on each rank gets, as its exclusive computation (its own
// time outside MPI, without the functions it calls), the mean over the ranks that have that visit.
#pragma once

#include <vector>

#include "wisp/scenario/selection.hpp"

namespace wisp {

struct CallpathBalance {
  GapRetiming gaps;           // apply with retime(trace, gaps)
  std::size_t instances = 0;  // (call path, k) pairs balanced
  std::size_t callpaths = 0;  // distinct call paths among them
  std::size_t repeated = 0;   // call paths with more than one visit on some rank (iterations)
};

// The retiming that balances every call path inside `visits` (as select_visits gives them).
// Total computation is preserved; measurement regions (buffer flushes) keep their time.
CallpathBalance balance_callpaths(const Trace& trace, const std::vector<Visit>& visits);

}  // namespace wisp
