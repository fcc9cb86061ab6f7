// The same events at other times: rebuilds a trace through TraceBuilder with new per-event times
// (the replay's simulated times), so every derived structure is recomputed for the new timing.
// The events of the ranks' other threads and streams follow their master (other_locations.hpp).
#pragma once

#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

// `times[r][i]` is the new time of event i of rank r (seconds since the trace start), snapped to
// the trace's clock resolution. Throws wisp::Error if the sizes do not match the trace.
Trace retimed(const Trace& trace, const std::vector<std::vector<double>>& times);
// The same, freeing each rank's times once its events are built (one rank's times at the peak).
Trace retimed(const Trace& trace, std::vector<std::vector<double>>&& times);

}  // namespace wisp
