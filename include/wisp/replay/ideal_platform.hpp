// The ideal network of the POP serialisation and transfer efficiencies (paper 003 §3.1) as a
// SimGrid replay: a contention-free crossbar with zero latency, every message of zero bytes, no
// per-call overhead, MPI_Init costing nothing and the collectives' analytic (model) algorithm, so
// only the synchronisation of the messages and collectives remains. `wisp analyze` uses the
// analysis layer's clock replay (pop.hpp's timers) by default and this one with
// `--ideal-network simgrid`; the tests check that the two agree.
#pragma once

#include <cstdint>

#include "wisp/replay/platform.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// The ideal platform for `ranks` ranks, and the replay options that make it ideal. Messages above
// `eager_limit` bytes use the rendezvous protocol, as in the clock replay.
Platform ideal_platform(Rank ranks, std::uint64_t eager_limit = 65536);
ReplayOptions ideal_replay_options();

struct SimulatedIdealNetwork {
  double runtime = 0;      // T_ideal [s]: the replay's end minus the trace's first event
  double launch_skew = 0;  // latest minus earliest first event of a rank [s] (the replay keeps it)
  ReplayStatistics statistics;
};

// Replays `trace` on the ideal platform (in a forked child, see replay.hpp). Throws like replay().
SimulatedIdealNetwork simulate_ideal_network(const Trace& trace, std::uint64_t eager_limit = 65536);

}  // namespace wisp
