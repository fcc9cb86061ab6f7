// What each MPI function's call costs on a platform's MPI software model (MpiCosts), as tables by
// region: the replay's world (its own and, with a calibration inside hosts, the one inside) and
// the exports' programs read the same ones. Internal to the replay layer.
#pragma once

#include <vector>

#include "wisp/replay/platform.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::replay_impl {

struct CallPrices {
  std::vector<double> overhead_of_region;          // by RegionId [s]
  std::vector<bool> per_message_region;            // by RegionId: its calls pay per message (MpiCosts::per_message)
  double send_overhead = 0, receive_overhead = 0;  // per message [s]
};

inline CallPrices call_prices(const Trace& trace, const MpiCosts& mpi) {
  CallPrices p;
  p.overhead_of_region.assign(trace.defs.regions.size(), 0.0);
  p.per_message_region.assign(trace.defs.regions.size(), false);
  for (RegionId r = 0; r < trace.defs.regions.size(); ++r)
    if (is_mpi(trace.defs.regions[r].kind)) {
      p.overhead_of_region[r] = mpi.overhead(trace.defs.regions[r].name);
      p.per_message_region[r] = mpi.per_message(trace.defs.regions[r].name);
    }
  p.send_overhead = mpi.send_overhead.value_or(0);
  p.receive_overhead = mpi.receive_overhead.value_or(0);
  return p;
}

}  // namespace wisp::replay_impl
