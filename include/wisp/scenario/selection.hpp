// Which region visits a scenario transform acts on, resolved against a trace. A visit is one
// outermost Enter..Leave of a matching call path on one rank; its "computation" is the time
// inside it spent outside MPI calls (nested user functions included).
#pragma once

#include <vector>

#include "wisp/scenario/scenario.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct Visit {
  Rank rank = kNone;
  EventIndex enter = kNone;
  EventIndex leave = kNone;
  std::uint32_t index = 0;  // k-th visit of the selection on this rank (before filters)
};

// The visits `s` selects, rank by rank in time order. Throws wisp::Error at s.where for an
// unknown region or call path (naming the closest existing ones), a rank that does not exist,
// an MPI function as region, or a selection that matches nothing.
std::vector<Visit> select_visits(const Trace& trace, const Selection& s);

// Seconds of computation inside each visit.
std::vector<double> computation(const Trace& trace, const std::vector<Visit>& visits);

// A copy of the trace in which every listed visit's computation takes target[i] seconds
// (stretched proportionally; added right after its Enter when it had none). Later events
// shift accordingly; MPI call durations are kept (the replay recomputes them).
Trace retime(const Trace& trace, const std::vector<Visit>& visits, const std::vector<double>& target);

// Retiming by gap: per rank (empty: unchanged) and event i, the gap i -> i+1 lasts factor[i] times
// as long plus extra[i] seconds. Later events shift; a hybrid trace's other threads follow.
struct GapRetiming {
  std::vector<std::vector<double>> factor, extra;
};
Trace retime(const Trace& trace, const GapRetiming& gaps);
// true for every gap (event i -> i+1) of the rank spent inside an MPI call.
std::vector<bool> mpi_gaps(const RankTrace& rank);

}  // namespace wisp
