// The report's timelines of a trace spread over processes (Trace::share): each process makes the
// lanes of its ranks, where their events are, and process 0 receives only what the report shows —
// the whole timeline when it fits, else the master lanes of one group of ranks at a time (for the
// summary) and a window. Each equals what one process makes of the whole trace.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/timeline.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp {

struct TimelinePart {
  // This process's ranks' lanes and rank splits; the messages sent from its ranks, in message
  // order; the whole run's start, end, labels and critical path.
  Timeline timeline;
  std::vector<std::uint32_t> message_ids;  // each message's number
  std::uint64_t intervals = 0;             // Timeline::interval_count() of the whole timeline
  std::uint64_t messages = 0;              // its messages
};

// Collective: the part of every process (the receive times of messages sent from here cross from
// the receivers' processes).
TimelinePart build_timeline_part(const Trace& trace, const WaitPathAnalysis& analysis, ProcessGroup& group);

// Collective: on process 0 build_timeline() of the whole trace; an empty timeline elsewhere.
Timeline gather_timeline(const TimelinePart& part, ProcessGroup& group);
// Collective: on process 0 the start, end and labels with the master lanes of ranks [first, last)
// only: what summarize_timeline() reads of that group of ranks.
Timeline gather_master_lanes(const TimelinePart& part, Rank first, Rank last, ProcessGroup& group);
// Collective: on process 0 every rank's split (Timeline::ranks of the whole timeline).
std::vector<RankSplit> gather_timeline_splits(const TimelinePart& part, ProcessGroup& group);
// Collective: on process 0 timeline_window(whole timeline, t0, t1).
Timeline gather_window(const TimelinePart& part, double t0, double t1, ProcessGroup& group);
// Collective: window_end() of the whole timeline, on every process.
double window_end(const TimelinePart& part, std::size_t max_intervals, double from, ProcessGroup& group);

}  // namespace wisp
