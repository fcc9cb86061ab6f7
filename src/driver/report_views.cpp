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

ReportViews report_views(const std::vector<const Trace*>& traces, const std::vector<const WaitPathAnalysis*>& analyses,
                         double limit_bytes, bool keep_full, std::optional<HtmlWindow> window) {
  ReportViews v;
  std::vector<Timeline> full;
  double bytes = kPageBytes;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    full.push_back(build_timeline(*traces[i], *analyses[i]));
    bytes += timeline_bytes(full.back());
    if (bytes > limit_bytes) break;
  }
  const double share = std::max(0.0, (limit_bytes - kPageBytes) / static_cast<double>(traces.size()));
  const auto window_intervals = static_cast<std::size_t>(share / (kBytesPerInterval + kBytesPerMessage));
  const double mb = 1e-6;
  if (bytes <= limit_bytes) {  // everything fits; a window asked for beside it
    if (window) {
      const double stop = std::min(window->end, window_end({&full.front()}, window_intervals, window->start));
      for (const Timeline& t : full) v.window.push_back(timeline_window(t, window->start, stop));
      v.window_note = fmt::format("Full detail of {:.6f} s to {:.6f} s (--html-window {}:{}{}).", window->start, stop,
                                  window->start, window->end, stop < window->end ? ", cut to the size limit" : "");
    }
    v.shown = std::move(full);  // `full` stays empty: whole() is `shown`
    return v;
  }
  // Over the limit: per trace, in turn, the summary (as many bins as fit the page: two intervals
  // per bin and lane) and the window (asked for, else from the start) whose intervals fit a third
  // of its own page (chosen on the first trace, the same for all).
  const auto bins = static_cast<std::uint32_t>(
      std::clamp(share / (kLanesPerTimeline * 2 * kBytesPerInterval), double(kMinBins), double(kMaxBins)));
  double window_start = 0, window_stop = 0;
  std::size_t intervals = 0;
  std::uint32_t group = 1;
  for (std::size_t i = 0; i < traces.size(); ++i) {  // the timelines made above are not made again
    Timeline t = i < full.size() ? std::move(full[i]) : build_timeline(*traces[i], *analyses[i]);
    intervals += t.interval_count();
    group = static_cast<std::uint32_t>((t.ranks.size() + kLanesPerTimeline - 1) / kLanesPerTimeline);
    v.shown.push_back(summarize_timeline(t, bins, std::max<std::uint32_t>(group, 1)));
    if (i == 0) {
      window_start = window ? window->start : t.start;
      window_stop = window_end({&t}, window_intervals, window_start);
      if (window) window_stop = std::min(window_stop, window->end);
    }
    v.window.push_back(timeline_window(t, window_start, window_stop));
    if (keep_full) v.full.push_back(std::move(t));
  }
  v.note = fmt::format(
      "The timelines are a summary: {} time bins per lane, {} rank{} per lane (computation, MPI and waiting shares of "
      "each "
      "bin as in the run; messages left out). Their full detail ({} intervals, about {:.0f} MB) is above report.html's "
      "limit of {:.0f} MB (--html-limit MB); report-window.html shows every interval from {:.6f} s to {:.6f} "
      "s (--html-window START:END picks another).",
      bins, std::max<std::uint32_t>(group, 1), group > 1 ? "s" : "", intervals,
      (kBytesPerInterval * static_cast<double>(intervals)) * mb, limit_bytes * mb, window_start, window_stop);
  v.window_note = fmt::format(
      "Full detail of {:.6f} s to {:.6f} s only: the whole run's timelines are above report.html's limit of {:.0f} MB "
      "(report.html shows their summary).",
      window_start, window_stop, limit_bytes * mb);
  return v;
}

}  // namespace wisp::driver
