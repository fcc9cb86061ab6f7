// The ideal network as a SimGrid replay. See ideal_platform.hpp.
#include "wisp/replay/ideal_platform.hpp"

#include <algorithm>

#include "wisp/replay/collective_algorithm.hpp"

namespace wisp {

Platform ideal_platform(Rank ranks, std::uint64_t eager_limit) {
  // Zero latency; the bandwidth does not matter since every message has zero bytes
  // (ReplayOptions::zero_communication), 10^12 bytes/s keeps it finite for SimGrid.
  return contention_free_crossbar(std::max<Rank>(ranks, 1), 0.0, 1e12, 0.0, eager_limit);
}

ReplayOptions ideal_replay_options() {
  ReplayOptions o;
  o.zero_communication = true;
  o.init_time = 0.0;
  o.algorithms.set_all(CollectiveAlgorithm::Analytic);
  o.progress_interval = 0;
  return o;
}

SimulatedIdealNetwork simulate_ideal_network(const Trace& trace, std::uint64_t eager_limit) {
  // The latest first event of a rank (launch skew); start_time() is the earliest.
  const double first = trace.start_time();
  double last_start = first;
  bool any = false;
  for (const RankTrace& rt : trace.ranks) {
    if (rt.events.empty()) continue;
    last_start = std::max(last_start, rt.events.front().time);
    any = true;
  }
  const ReplayResult r = replay(trace, ideal_platform(trace.rank_count(), eager_limit), ideal_replay_options());
  SimulatedIdealNetwork out;
  out.runtime = any ? r.runtime - first : 0.0;
  out.launch_skew = last_start - first;
  out.statistics = r.statistics;
  return out;
}

}  // namespace wisp
