// Fixed and adaptive POP windows. See pop_windows.hpp.
#include "wisp/analysis/pop_windows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/bisect.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/group/pack.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

// A rank's outermost MPI calls (those not inside another), in order: the PAG's calls.
std::vector<CallSpan> outermost_calls(const RankTrace& rt) {
  std::vector<CallSpan> outer;
  for (const CallSpan& c : rt.mpi_calls)
    if (outer.empty() || c.enter > outer.back().leave) outer.push_back(c);
  return outer;
}

// A rank's MPI events (the enters and leaves of its calls, in time order) read from the trace and
// the PAG's calls, as PopTimeline::mpi_event_time() gives them.
struct CallEvents {
  const Trace& trace;
  const Pag& pag;
  std::size_t mpi_event_count(Rank r) const { return 2 * pag.calls[r].size(); }
  double mpi_event_time(Rank r, std::size_t i) const {
    const PagCall& c = pag.calls[r][i / 2];
    return trace.ranks[r].events[i % 2 == 0 ? c.enter : c.leave].time;
  }
};

// Spread over processes: every rank's MPI events counted at the windows' borders, gathered (what
// the merging reads of them), instead of the events themselves.
struct BorderCounts {
  std::vector<double> borders;
  std::vector<std::vector<std::uint32_t>> below;  // per rank: events before each border, then up to the last
  std::size_t mpi_event_count(Rank r) const { return below[r].empty() ? 0 : below[r].back(); }
  std::size_t border(double t) const {
    return static_cast<std::size_t>(std::lower_bound(borders.begin(), borders.end(), t) - borders.begin());
  }
};

// MPI events of rank r in [a, b), or [a, b] for the last window.
std::uint32_t events_in(const BorderCounts& t, Rank r, double a, double b, bool closed) {
  const std::vector<std::uint32_t>& below = t.below[r];
  if (below.empty()) return 0;
  return (closed ? below.back() : below[t.border(b)]) - below[t.border(a)];
}

template <typename Events>
std::uint32_t events_in(const Events& t, Rank r, double a, double b, bool closed) {
  const std::size_t n = t.mpi_event_count(r);
  const auto time = [&](std::size_t i) { return t.mpi_event_time(r, i); };
  const std::size_t lo = lower_index(n, a, time);
  const std::size_t hi = closed ? upper_index(n, b, time) : lower_index(n, b, time);
  return static_cast<std::uint32_t>(hi - lo);
}

// Fewest MPI events of a rank that has any (ranks without MPI events cannot take part).
template <typename Events>
std::uint32_t fewest_events(const Events& t, Rank ranks, double a, double b, bool closed) {
  std::uint32_t fewest = 0;
  bool any = false;
  for (Rank r = 0; r < ranks; ++r) {
    if (t.mpi_event_count(r) == 0) continue;
    const std::uint32_t n = events_in(t, r, a, b, closed);
    fewest = any ? std::min(fewest, n) : n;
    any = true;
  }
  return fewest;
}

std::vector<double> fixed_borders(double start, double end, double length) {
  if (!(length > 0)) throw Error(fmt::format("POP windows: the window length must be positive (got {})", length));
  const double span = end - start;
  const double count = std::max(1.0, std::ceil(span / length));
  if (count > 1e7)
    throw Error(fmt::format("POP windows: {} s windows cut the {} s run into more than 10^7 windows", length, span));
  std::vector<double> borders;
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) borders.push_back(start + i * length);
  borders.push_back(end);
  return borders;
}

template <typename Events>
std::vector<WindowRange> ranges_of(const Events& t, Rank ranks, const std::vector<double>& borders,
                                   const WindowOptions& options) {
  const std::size_t last = borders.size() - 1;
  std::vector<std::pair<double, double>> ranges;
  std::size_t from = 0;
  for (std::size_t to = 1; to <= last; ++to) {
    const bool closed = to == last;
    if (fewest_events(t, ranks, borders[from], borders[to], closed) < options.min_events && !closed) continue;
    if (closed && !ranges.empty() && fewest_events(t, ranks, borders[from], borders[to], true) < options.min_events)
      ranges.back().second = borders[to];  // a short rest joins the window before it
    else
      ranges.emplace_back(borders[from], borders[to]);
    from = to;
  }
  std::vector<WindowRange> out;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto [a, b] = ranges[i];
    out.push_back(WindowRange{a, b, fewest_events(t, ranks, a, b, i + 1 == ranges.size())});
  }
  return out;
}

}  // namespace

std::vector<WindowRange> window_ranges(const PopTimeline& t, const WindowOptions& options) {
  return ranges_of(t, static_cast<Rank>(t.ranks.size()), fixed_borders(t.start, t.end, options.length), options);
}

std::vector<WindowRange> window_ranges(const Trace& trace, const Pag& pag, const WindowOptions& options) {
  return ranges_of(CallEvents{trace, pag}, trace.rank_count(),
                   fixed_borders(trace.start_time(), trace.end_time(), options.length), options);
}

std::vector<WindowRange> window_ranges(const Trace& trace, const TraceSummary& whole, const WindowOptions& options,
                                       ProcessGroup& group) {
  BorderCounts counts{fixed_borders(whole.start_time(), whole.end_time(), options.length), {}};
  counts.below.resize(trace.rank_count());
  Packer mine;
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    const RankTrace& rt = trace.ranks[r];
    std::vector<double> times;  // the enters and leaves of its outermost MPI calls, as the PAG's calls
    for (const CallSpan& c : outermost_calls(rt)) {
      times.push_back(rt.events[c.enter].time);
      times.push_back(rt.events[c.leave].time);
    }
    std::vector<std::uint32_t> below;
    if (!times.empty()) {
      const auto time = [&](std::size_t i) { return times[i]; };
      for (const double b : counts.borders)
        below.push_back(static_cast<std::uint32_t>(lower_index(times.size(), b, time)));
      below.push_back(static_cast<std::uint32_t>(upper_index(times.size(), counts.borders.back(), time)));
    }
    mine.put_vector(below);
  }
  const std::vector<RankShare> shares = gather_shares(group, *trace.share);
  const std::vector<std::string> parts = all_gather(group, mine.take());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    Unpacker in(parts[p]);
    for (Rank r = shares[p].first; r < shares[p].last; ++r) counts.below[r] = in.get_vector<std::uint32_t>();
  }
  return ranges_of(counts, trace.rank_count(), counts.borders, options);
}

std::vector<PopWindow> pop_windows(const PopTimeline& t, const WindowOptions& options) {
  std::vector<PopWindow> out;
  for (const WindowRange& w : window_ranges(t, options))
    out.push_back(PopWindow{w.start, w.end, pop_factors(t, w.start, w.end), w.min_events});
  return out;
}

}  // namespace wisp
