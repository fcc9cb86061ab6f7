// POP factors over time (paper 003 §3): fixed windows of a given length from the trace's start,
// or adaptive ones: consecutive fixed windows merged until every rank has at least N MPI events
// (enters and leaves of its MPI calls) in the merged window; a short rest at the end joins the
// window before it. MPI calls crossing a border are split wait-then-transfer (see pop.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/pop.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

struct WindowOptions {
  double length = 0;             // seconds, > 0
  std::uint32_t min_events = 3;  // N; 0: fixed windows, no merging
};

struct PopWindow {
  double start = 0, end = 0;
  PopFactors factors;
  std::uint32_t min_events = 0;  // fewest MPI events of a rank in the window
};

// Throws wisp::Error for a length that is not positive or that makes more than 10^7 windows.
std::vector<PopWindow> pop_windows(const PopTimeline& timeline, const WindowOptions& options);

// The windows' borders and fewest MPI events alone (they need the MPI event times, not the
// timers): from a timeline, or from the trace and the PAG's calls before any timer is replayed.
struct WindowRange {
  double start = 0, end = 0;
  std::uint32_t min_events = 0;
};
std::vector<WindowRange> window_ranges(const PopTimeline& timeline, const WindowOptions& options);
std::vector<WindowRange> window_ranges(const Trace& trace, const Pag& pag, const WindowOptions& options);
// Collective over `group`, for a trace read spread over it (`whole`: summary_over() of it): the
// same ranges as of the whole trace, on every process (each counts its ranks' MPI events at the borders).
std::vector<WindowRange> window_ranges(const Trace& trace, const TraceSummary& whole, const WindowOptions& options,
                                       ProcessGroup& group);

}  // namespace wisp
