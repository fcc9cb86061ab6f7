// The timeline of a trace as reports draw it: per lane (a rank's master thread, then its other
// threads and streams) the stretches between consecutive Enter/Leave events with their call path,
// the waiting inside them and whether the critical path runs through them; the messages; and per
// rank the split of its time into computation, MPI (not waiting) and waiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wisp/analysis/path_segment.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// What an interval executes: a call path of a master thread or a region of another location.
struct TimelineLabel {
  bool operator==(const TimelineLabel&) const = default;
  std::string name;              // "main/solve/MPI_Recv" (master), "!$omp parallel" (other location)
  std::string region;            // the innermost region's name
  bool mpi = false;              // an MPI function
  std::uint32_t parent = kNone;  // the label of the enclosing call path (kNone: a root or a region)
  std::string short_name;        // for display: "cg_solve/dot" (trace/short_names.hpp)
};

// One lane, columnar: interval i runs from start[i] to end[i] [s] executing labels[label[i]].
struct TimelineLane {
  bool operator==(const TimelineLane&) const = default;
  Rank rank = kNone;
  std::string name;    // "rank 3", "rank 3 OMP thread 1"
  bool master = true;  // the rank's master thread (MPI calls, waits, critical path)
  std::vector<double> start, end;
  std::vector<std::uint32_t> label;
  std::vector<double> wait;            // waiting time inside the interval [s] (wait states)
  std::vector<std::uint8_t> critical;  // 1: the critical path runs through the interval
  std::vector<Rank> members;           // a summary lane (timeline_summary.hpp): the ranks it stands for
};

struct TimelineMessage {
  bool operator==(const TimelineMessage&) const = default;
  Rank sender = kNone, receiver = kNone;
  double send = 0, recv = 0;  // times of the send and the receive records [s]
  std::uint64_t bytes = 0;
};

// A rank's master thread from its first to its last region event [s].
struct RankSplit {
  bool operator==(const RankSplit&) const = default;
  double computation = 0;  // outside MPI calls
  double mpi = 0;          // in MPI calls, waiting excluded
  double waiting = 0;      // wait states (Late Sender, Wait at N x N, ...)
};

struct Timeline {
  double start = 0, end = 0;              // first and last event of the trace [s]
  std::vector<TimelineLabel> labels;      // call paths by CallpathId, then other locations' regions
  std::vector<TimelineLane> lanes;        // per rank: master, then its other locations
  std::vector<TimelineMessage> messages;  // matched messages, by send time
  std::vector<RankSplit> ranks;
  std::vector<PathSegment> critical_path;  // as the analysis found it (waiting excluded)
  std::size_t interval_count() const;
};

// The timeline of `trace` with the wait states and critical path of its analysis.
Timeline build_timeline(const Trace& trace, const WaitPathAnalysis& analysis);
// Its lanes and rank splits of ranks [first, last) only, with the labels and the critical path (no
// start, end or messages): what a process holding those ranks makes (timeline_spread.hpp).
Timeline build_timeline_of_ranks(const Trace& trace, const WaitPathAnalysis& analysis, Rank first, Rank last);

// A timeline with the name a report shows for it ("measured", "identity", "scenario").
struct NamedTimeline {
  std::string name;
  const Timeline* timeline = nullptr;
};

}  // namespace wisp
