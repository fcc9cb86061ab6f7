// Timelines in the Chrome Trace Event format (chrome://tracing, ui.perfetto.dev): one process per
// timeline (measured, identity, scenario), one thread per rank and other location, one complete
// event ("X") per interval named by its region, its call path once per distinct call path as a
// stack frame ("stackFrames", events refer to it by "sf"), messages as flow events ("s" → "f").
// What `--chrome-trace FILE` writes.
#pragma once

#include <string>
#include <vector>

#include "wisp/analysis/timeline.hpp"

namespace wisp {

// {"displayTimeUnit": "ns", "stackFrames": {...}, "traceEvents": [...]}; times in microseconds since
// the trace's time 0, to the nanosecond.
std::string chrome_trace_json(const std::vector<NamedTimeline>& timelines);

}  // namespace wisp
