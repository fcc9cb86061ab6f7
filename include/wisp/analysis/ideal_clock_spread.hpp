// POP's ideal-network clock replay spread over processes, as Scalasca's parallel replay runs
// forward: each process replays its ranks' events on the ideal network's dependencies (the PAG's
// ideal variant: messages, rendezvous above the eager limit, collectives) and sends the clock of a
// dependency's start to the process of its end. Clocks are integer ticks combined by max and sum,
// so the order values arrive in does not change them: the samples equal pop_samples() of the whole
// trace exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "wisp/analysis/pop.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/trace/trace.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// A round of the replay stops sending at about this many bytes per process (the rest goes on in
// the next round), so that no process holds a whole replay's values at once.
inline constexpr std::size_t kClockRoundBytes = std::size_t{8} << 20;

// How the clocks cross. A dependency chain that goes back and forth between processes (a halo
// exchange and an Allreduce per step) needs a hop per crossing: in rounds of exchange() each hop
// costs a collective of every process; point to point, one message (a process sends what its
// ranks produced when they all wait, and waits for the next message). Point to point cannot tell
// a cycle from slow processes, so it is only safe where no cycle can be: every dependency goes
// forward in time, so a cycle needs dependencies between events of the same time stamp ("tight").
enum class ClockTransport : std::uint8_t {
  Automatic,     // point to point if no dependency of the trace is tight, else rounds
  Rounds,        // exchange() rounds; a round in which nothing is sent while ranks wait is a cycle
  PointToPoint,  // ProcessGroup::send/receive (the caller knows there is no cycle)
};

// Collective over `group`, for a trace read spread over it (`whole`: summary_over() of it): the
// timers of every rank at `times`, on every process, equal to pop_samples(whole trace, its PAG
// with this eager limit, times).
// nullopt (on every process) if the ideal network's dependencies form a cycle (events with equal
// timestamps in an inconsistent trace), which only a PAG of the whole trace can break.
std::optional<PopSamples> pop_samples(const Trace& trace, const TraceSummary& whole, std::uint64_t eager_limit,
                                      std::vector<double> times, ProcessGroup& group,
                                      std::size_t round_bytes = kClockRoundBytes,
                                      ClockTransport transport = ClockTransport::Automatic);

}  // namespace wisp
