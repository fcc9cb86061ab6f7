// The timelines report.html shows, within a size limit: whole when they fit, else a summary at
// every zoom level (rank groups × time bins, timeline_summary.hpp) in report.html and the full
// detail of the longest window from the start that fits in report-window.html; a note says which.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wisp/analysis/timeline.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp::driver {

struct ReportViews {
  std::vector<Timeline> shown;   // report.html's, one per trace
  std::vector<Timeline> window;  // report-window.html's (empty: everything fits)
  std::vector<Timeline> full;    // cut timelines kept whole when asked (the Chrome trace)
  // The whole timelines: `shown` when they fit, else `full` (if kept).
  const std::vector<Timeline>& whole() const { return full.empty() ? shown : full; }
  std::string note;         // on report.html when detail was cut
  std::string window_note;  // on report-window.html
};

// A window of full detail a user asks for (`--html-window START:END`, seconds).
struct HtmlWindow {
  double start = 0, end = 0;
};
// "" → none; else "START:END" with START < END; throws wisp::Error naming the option.
std::optional<HtmlWindow> parse_html_window(const std::string& text);

// The views made one trace at a time, in any order, so that each trace can be dropped once added
// (wisp run's traces): add() makes its full timeline and keeps it while all added so far fit the
// limit; past it, every timeline is summarized and cut to the window as it comes (the window is
// chosen on the one that passed the limit). The views list the timelines in `slots` order. With `window`,
// report-window.html shows it (cut where it would pass the limit) whether or not report.html is whole.
class ReportViewsBuilder {
 public:
  ReportViewsBuilder(std::vector<std::string> slots, double limit_bytes, bool keep_full,
                     std::optional<HtmlWindow> window);
  // `slot`: one of the constructor's names, each added once.
  void add(const std::string& slot, const Trace& trace, const WaitPathAnalysis& analysis);
  ReportViews finish();

 private:
  std::size_t index_of(const std::string& slot) const;
  void summarize(std::size_t slot, Timeline t);

  std::vector<std::string> slots_;
  double limit_;
  bool keep_full_;
  std::optional<HtmlWindow> window_;
  double bytes_;  // report.html's estimated size with the timelines kept whole
  std::size_t window_intervals_ = 0;
  std::uint32_t bins_ = 0;
  bool over_ = false;
  bool window_chosen_ = false;
  std::vector<std::optional<Timeline>> fitting_, shown_, window_part_, full_;  // by slot
  std::size_t intervals_ = 0;                                                  // of the summarized timelines
  std::uint32_t group_ = 1;
  double window_start_ = 0, window_stop_ = 0;
};

// All at once: the timelines of `traces` with their analyses' waits and critical paths (each full
// timeline made, cut and dropped in turn unless `keep_full`).
ReportViews report_views(const std::vector<const Trace*>& traces, const std::vector<const WaitPathAnalysis*>& analyses,
                         double limit_bytes, bool keep_full, std::optional<HtmlWindow> window = std::nullopt);

// Collective, for a trace spread over processes (wisp analyze -o under mpirun): on process 0 the
// views report_views() makes of the whole trace, from every process's part of the timeline
// (timeline_spread.hpp): the whole timeline when it fits, else the summary one group of ranks at a
// time and the window. The other processes get empty views.
ReportViews report_views(const Trace& share, const WaitPathAnalysis& analysis, ProcessGroup& group, double limit_bytes,
                         std::optional<HtmlWindow> window = std::nullopt);

}  // namespace wisp::driver
