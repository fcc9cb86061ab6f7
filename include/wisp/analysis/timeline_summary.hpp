// A timeline too large for a bounded report, made small: a summary at every zoom level (lanes of
// rank groups, time bins holding each bin's computation, MPI and waiting), and the full detail of a
// time window. The report renders either like any timeline (report/html_report.cpp).
#pragma once

#include <cstdint>
#include <functional>

#include "wisp/analysis/timeline.hpp"

namespace wisp {

// The masters of `group` consecutive ranks per lane ("ranks 0-3"; other threads and streams are
// left out), each lane cut into `bins` equal bins over [start, end]. A bin is written as two
// intervals laid end to end from its start: the group's mean computation (labelled with the
// bin's largest computation call path) and its mean MPI time (the largest MPI call path, with the
// mean waiting): drawn zoomed out, each pixel column shows the same computation, MPI and waiting
// shares as the full timeline. Messages are left out; the critical path keeps one segment per run
// on a rank. Rank splits are kept as they are.
Timeline summarize_timeline(const Timeline& full, std::uint32_t bins, std::uint32_t group);

// The intervals, messages and critical-path segments of `full` that overlap [t0, t1], cut to it.
Timeline timeline_window(const Timeline& full, double t0, double t1);

// The end of the longest window from `from` whose intervals (those overlapping it) in all of
// `timelines` together number at most `max_intervals`.
double window_end(const std::vector<const Timeline*>& timelines, std::size_t max_intervals, double from);
// The same search over a count of the intervals overlapping [from, end) (`count(end)`), up to `last`.
double window_end(const std::function<std::size_t(double end)>& count, double from, double last,
                  std::size_t max_intervals);
// The intervals of `t` that end after `from` and start before `end`.
std::size_t intervals_overlapping(const Timeline& t, double from, double end);

}  // namespace wisp
