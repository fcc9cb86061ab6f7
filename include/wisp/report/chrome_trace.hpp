// Timelines in the Chrome Trace Event format (chrome://tracing, ui.perfetto.dev): one process per
// timeline (measured, identity, scenario), one thread per rank and other location, one complete
// event ("X") per interval, messages as flow events ("s" → "f"). What `--chrome-trace FILE` writes.
#pragma once

#include <string>
#include <vector>

#include "wisp/analysis/timeline.hpp"

namespace wisp {

// {"traceEvents": [...], "displayTimeUnit": "ns"}; times in microseconds since the trace's time 0.
std::string chrome_trace_json(const std::vector<NamedTimeline>& timelines);

}  // namespace wisp
