// See report_views.hpp.
#include "wisp/driver/report_views.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

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

ReportViewsBuilder::ReportViewsBuilder(std::size_t traces, double limit_bytes, bool keep_full,
                                       std::optional<HtmlWindow> window)
    : limit_(limit_bytes), keep_full_(keep_full), window_(window), bytes_(kPageBytes) {
  const double share =
      std::max(0.0, (limit_bytes - kPageBytes) / static_cast<double>(std::max<std::size_t>(traces, 1)));
  window_intervals_ = static_cast<std::size_t>(share / (kBytesPerInterval + kBytesPerMessage));
  // Over the limit: as many bins as fit the page, two intervals per bin and lane.
  bins_ = static_cast<std::uint32_t>(
      std::clamp(share / (kLanesPerTimeline * 2 * kBytesPerInterval), double(kMinBins), double(kMaxBins)));
}

void ReportViewsBuilder::add(const Trace& trace, const WaitPathAnalysis& analysis) {
  Timeline t = build_timeline(trace, analysis);
  if (over_) return summarize(std::move(t));
  bytes_ += timeline_bytes(t);
  fitting_.push_back(std::move(t));
  if (bytes_ <= limit_) return;
  over_ = true;  // the timelines kept so far are summarized too, in their order
  std::vector<Timeline> kept = std::move(fitting_);
  fitting_.clear();
  for (Timeline& k : kept) summarize(std::move(k));
}

// Over the limit, per trace in turn: the summary and the window (asked for, else from the start)
// whose intervals fit a third of its own page (chosen on the first trace, the same for all).
void ReportViewsBuilder::summarize(Timeline t) {
  intervals_ += t.interval_count();
  group_ = std::max<std::uint32_t>(
      static_cast<std::uint32_t>((t.ranks.size() + kLanesPerTimeline - 1) / kLanesPerTimeline), 1);
  views_.shown.push_back(summarize_timeline(t, bins_, group_));
  if (views_.window.empty()) {
    window_start_ = window_ ? window_->start : t.start;
    window_stop_ = window_end({&t}, window_intervals_, window_start_);
    if (window_) window_stop_ = std::min(window_stop_, window_->end);
  }
  views_.window.push_back(timeline_window(t, window_start_, window_stop_));
  if (keep_full_) views_.full.push_back(std::move(t));
}

ReportViews ReportViewsBuilder::finish() {
  const double mb = 1e-6;
  if (!over_) {  // everything fits; a window asked for beside it
    if (window_ && !fitting_.empty()) {
      const double stop = std::min(window_->end, window_end({&fitting_.front()}, window_intervals_, window_->start));
      for (const Timeline& t : fitting_) views_.window.push_back(timeline_window(t, window_->start, stop));
      views_.window_note =
          fmt::format("Full detail of {:.6f} s to {:.6f} s (--html-window {}:{}{}).", window_->start, stop,
                      window_->start, window_->end, stop < window_->end ? ", cut to the size limit" : "");
    }
    views_.shown = std::move(fitting_);  // `full` stays empty: whole() is `shown`
    return std::move(views_);
  }
  views_.note = fmt::format(
      "The timelines are a summary: {} time bins per lane, {} rank{} per lane (computation, MPI and waiting shares of "
      "each "
      "bin as in the run; messages left out). Their full detail ({} intervals, about {:.0f} MB) is above report.html's "
      "limit of {:.0f} MB (--html-limit MB); report-window.html shows every interval from {:.6f} s to {:.6f} "
      "s (--html-window START:END picks another).",
      bins_, group_, group_ > 1 ? "s" : "", intervals_, (kBytesPerInterval * static_cast<double>(intervals_)) * mb,
      limit_ * mb, window_start_, window_stop_);
  views_.window_note = fmt::format(
      "Full detail of {:.6f} s to {:.6f} s only: the whole run's timelines are above report.html's limit of {:.0f} MB "
      "(report.html shows their summary).",
      window_start_, window_stop_, limit_ * mb);
  return std::move(views_);
}

ReportViews report_views(const std::vector<const Trace*>& traces, const std::vector<const WaitPathAnalysis*>& analyses,
                         double limit_bytes, bool keep_full, std::optional<HtmlWindow> window) {
  ReportViewsBuilder builder(traces.size(), limit_bytes, keep_full, window);
  for (std::size_t i = 0; i < traces.size(); ++i) builder.add(*traces[i], *analyses[i]);
  return builder.finish();
}

}  // namespace wisp::driver
