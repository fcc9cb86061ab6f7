// What the simulation process sends back to replay() through its pipe: a magic number, a status,
// the statistics, then the simulated time of every event (8 bytes each) and the anchored calls'
// residuals, or the deadlock report, or the error message.
#pragma once

#include <string>
#include <vector>

#include "simulation.hpp"

namespace wisp::replay_impl {

// SimGrid keeps time in double seconds and overflows its event heap near 9.2e9 s; a simulated
// run longer than this is an error (scale factors of 1e15 silently gave wrong gains).
constexpr double kLongestSimulation = 1e9;

// In the simulation process: runs simulate() and writes its outcome (or its error) to `fd`; with
// `runtime_only`, of each rank's times the last only. Returns the process's exit code.
int simulate_and_answer(int fd, const Trace& trace, const Platform& platform, const ReplayOptions& options,
                        bool runtime_only);

struct SimulatedTimes {
  std::vector<std::vector<double>> times;      // by rank, by event
  std::vector<std::vector<double>> residuals;  // by rank, by MPI call
  AnchoredCalls calls;                         // anchored replays
  ReplayStatistics stats;
};
// In replay(): decodes the answer as it arrives on `fd`. Throws ReplayDeadlock for a deadlock
// report, wisp::Error for an error message, a missing or truncated answer or a simulated run beyond
// kLongestSimulation.
SimulatedTimes read_answer(int fd);

}  // namespace wisp::replay_impl
