// See report_views.hpp.
#include "wisp/driver/report_views.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "wisp/analysis/timeline_spread.hpp"
#include "wisp/analysis/timeline_summary.hpp"
#include "wisp/error.hpp"

namespace wisp::driver {

namespace {

// report.html's JSON per interval (gap, duration, label, waiting as integers), message and
// critical-path segment, measured on generated halos (tests/perf/README.md#reporthtml-and-the-chrome-trace).
constexpr double kBytesPerInterval = 14, kBytesPerMessage = 20, kBytesPerSegment = 20;
// The page without timelines (template, d3, script, tables), the summary's finest resolution and
// its lanes per timeline.
constexpr double kPageBytes = 0.5e6;
constexpr std::uint32_t kMaxBins = 2000, kMinBins = 50, kLanesPerTimeline = 16;

// Bytes a timeline takes in report.html, estimated from its intervals, messages and critical path.
double timeline_bytes(const Timeline& t) {
  return kBytesPerInterval * static_cast<double>(t.interval_count()) +
         kBytesPerMessage * static_cast<double>(t.messages.size()) +
         kBytesPerSegment * static_cast<double>(t.critical_path.size());
}

// Per timeline, its share of the page: the intervals of a window and the summary's time bins.
struct PageShare {
  std::size_t window_intervals = 0;
  std::uint32_t bins = 0;
};

PageShare page_share(double limit_bytes, std::size_t timelines) {
  const double share =
      std::max(0.0, (limit_bytes - kPageBytes) / static_cast<double>(std::max<std::size_t>(timelines, 1)));
  // Over the limit: as many bins as fit the page, two intervals per bin and lane.
  return {static_cast<std::size_t>(share / (kBytesPerInterval + kBytesPerMessage)),
          static_cast<std::uint32_t>(
              std::clamp(share / (kLanesPerTimeline * 2 * kBytesPerInterval), double(kMinBins), double(kMaxBins)))};
}

// Ranks per summary lane: at most kLanesPerTimeline lanes.
std::uint32_t rank_group(std::size_t ranks) {
  return std::max<std::uint32_t>(static_cast<std::uint32_t>((ranks + kLanesPerTimeline - 1) / kLanesPerTimeline), 1);
}

std::string asked_window_note(HtmlWindow w, double stop) {
  return fmt::format("Full detail of {:.6f} s to {:.6f} s (--html-window {}:{}{}).", w.start, stop, w.start, w.end,
                     stop < w.end ? ", cut to the size limit" : "");
}

std::string summary_note(std::uint32_t bins, std::uint32_t group, std::size_t intervals, double limit, double start,
                         double stop) {
  const double mb = 1e-6;
  return fmt::format(
      "The timelines are a summary: {} time bins per lane, {} rank{} per lane (computation, MPI and waiting shares of "
      "each "
      "bin as in the run; messages left out). Their full detail ({} intervals, about {:.0f} MB) is above report.html's "
      "limit of {:.0f} MB (--html-limit MB); report-window.html shows every interval from {:.6f} s to {:.6f} "
      "s (--html-window START:END picks another).",
      bins, group, group > 1 ? "s" : "", intervals, (kBytesPerInterval * static_cast<double>(intervals)) * mb,
      limit * mb, start, stop);
}

std::string cut_window_note(double start, double stop, double limit) {
  return fmt::format(
      "Full detail of {:.6f} s to {:.6f} s only: the whole run's timelines are above report.html's limit of {:.0f} MB "
      "(report.html shows their summary).",
      start, stop, limit * 1e-6);
}

}  // namespace

std::optional<HtmlWindow> parse_html_window(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto colon = text.find(':');
  HtmlWindow w;
  char* end = nullptr;
  bool ok = colon != std::string::npos;
  if (ok) {
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    w.start = std::strtod(a.c_str(), &end);
    ok = !a.empty() && *end == '\0';
    w.end = std::strtod(b.c_str(), &end);
    ok = ok && !b.empty() && *end == '\0' && std::isfinite(w.start) && std::isfinite(w.end) && w.start >= 0 &&
         w.start < w.end;
  }
  if (!ok) throw Error(fmt::format("--html-window '{}': expected START:END in seconds, 0 <= START < END", text));
  return w;
}

ReportViewsBuilder::ReportViewsBuilder(std::vector<std::string> slots, double limit_bytes, bool keep_full,
                                       std::optional<HtmlWindow> window)
    : slots_(std::move(slots)), limit_(limit_bytes), keep_full_(keep_full), window_(window), bytes_(kPageBytes) {
  const PageShare share = page_share(limit_bytes, slots_.size());
  window_intervals_ = share.window_intervals;
  bins_ = share.bins;
  for (auto* v : {&fitting_, &shown_, &window_part_, &full_}) v->resize(slots_.size());
}

std::size_t ReportViewsBuilder::index_of(const std::string& slot) const {
  const auto at = std::find(slots_.begin(), slots_.end(), slot);
  if (at == slots_.end()) throw Error("report views: no timeline slot " + slot);
  return static_cast<std::size_t>(at - slots_.begin());
}

void ReportViewsBuilder::add(const std::string& slot, const Trace& trace, const WaitPathAnalysis& analysis) {
  const std::size_t i = index_of(slot);
  Timeline t = build_timeline(trace, analysis);
  if (over_) return summarize(i, std::move(t));
  bytes_ += timeline_bytes(t);
  fitting_[i] = std::move(t);
  if (bytes_ <= limit_) return;
  over_ = true;  // the timelines kept so far are summarized too (the one just added first: its window)
  summarize(i, std::move(*fitting_[i]));
  for (std::size_t k = 0; k < fitting_.size(); ++k)
    if (k != i && fitting_[k]) summarize(k, std::move(*fitting_[k]));
  fitting_.assign(slots_.size(), std::nullopt);
}

// Over the limit, per trace in turn: the summary and the window (asked for, else from the start)
// whose intervals fit a third of its own page (chosen on the first summarized, the same for all).
void ReportViewsBuilder::summarize(std::size_t slot, Timeline t) {
  intervals_ += t.interval_count();
  group_ = rank_group(t.ranks.size());
  shown_[slot] = summarize_timeline(t, bins_, group_);
  if (!window_chosen_) {
    window_start_ = window_ ? window_->start : t.start;
    window_stop_ = window_end({&t}, window_intervals_, window_start_);
    if (window_) window_stop_ = std::min(window_stop_, window_->end);
    window_chosen_ = true;
  }
  window_part_[slot] = timeline_window(t, window_start_, window_stop_);
  if (keep_full_) full_[slot] = std::move(t);
}

namespace {
std::vector<Timeline> made(std::vector<std::optional<Timeline>>& by_slot) {
  std::vector<Timeline> out;
  for (std::optional<Timeline>& t : by_slot)
    if (t) out.push_back(std::move(*t));
  return out;
}
}  // namespace

ReportViews ReportViewsBuilder::finish() {
  ReportViews views;
  if (!over_) {                    // everything fits; a window asked for beside it
    views.shown = made(fitting_);  // `full` stays empty: whole() is `shown`
    if (window_ && !views.shown.empty()) {
      const double stop = std::min(window_->end, window_end({&views.shown.front()}, window_intervals_, window_->start));
      for (const Timeline& t : views.shown) views.window.push_back(timeline_window(t, window_->start, stop));
      views.window_note = asked_window_note(*window_, stop);
    }
    return views;
  }
  views.shown = made(shown_);
  views.window = made(window_part_);
  views.full = made(full_);
  views.note = summary_note(bins_, group_, intervals_, limit_, window_start_, window_stop_);
  views.window_note = cut_window_note(window_start_, window_stop_, limit_);
  return views;
}

ReportViews report_views(const std::vector<const Trace*>& traces, const std::vector<const WaitPathAnalysis*>& analyses,
                         double limit_bytes, bool keep_full, std::optional<HtmlWindow> window) {
  std::vector<std::string> slots;
  for (std::size_t i = 0; i < traces.size(); ++i) slots.push_back(std::to_string(i));
  ReportViewsBuilder builder(slots, limit_bytes, keep_full, window);
  for (std::size_t i = 0; i < traces.size(); ++i) builder.add(slots[i], *traces[i], *analyses[i]);
  return builder.finish();
}

ReportViews report_views(const Trace& share, const WaitPathAnalysis& analysis, ProcessGroup& group, double limit_bytes,
                         std::optional<HtmlWindow> window) {
  const PageShare page = page_share(limit_bytes, 1);
  const TimelinePart part = build_timeline_part(share, analysis, group);
  const bool root = group.process() == 0;
  const double bytes = kPageBytes + kBytesPerInterval * static_cast<double>(part.intervals) +
                       kBytesPerMessage * static_cast<double>(part.messages) +
                       kBytesPerSegment * static_cast<double>(part.timeline.critical_path.size());
  ReportViews views;
  if (bytes <= limit_bytes) {  // whole, and a window asked for beside it
    views.shown.push_back(gather_timeline(part, group));
    if (window) {
      const double stop = std::min(window->end, window_end(part, page.window_intervals, window->start, group));
      views.window.push_back(timeline_window(views.shown.front(), window->start, stop));
      views.window_note = asked_window_note(*window, stop);
    }
    return root ? views : ReportViews{};
  }
  // The summary, one group of ranks at a time (process 0 holds one group's master lanes at most).
  const std::uint32_t ranks = share.rank_count(), per_lane = rank_group(ranks);
  const std::vector<RankSplit> splits = gather_timeline_splits(part, group);
  Timeline summary;
  for (Rank first = 0; first < ranks; first += per_lane) {
    Timeline lanes = gather_master_lanes(part, first, std::min(ranks, first + per_lane), group);
    if (!root) continue;
    lanes.ranks = splits;
    lanes.critical_path = part.timeline.critical_path;
    Timeline s = summarize_timeline(lanes, page.bins, per_lane);
    if (first == 0)
      summary = std::move(s);
    else
      std::move(s.lanes.begin(), s.lanes.end(), std::back_inserter(summary.lanes));
  }
  const double start = window ? window->start : part.timeline.start;
  double stop = window_end(part, page.window_intervals, start, group);
  if (window) stop = std::min(stop, window->end);
  Timeline cut = gather_window(part, start, stop, group);
  if (!root) return {};
  views.shown.push_back(std::move(summary));
  views.window.push_back(std::move(cut));
  views.note = summary_note(page.bins, per_lane, part.intervals, limit_bytes, start, stop);
  views.window_note = cut_window_note(start, stop, limit_bytes);
  return views;
}

}  // namespace wisp::driver
