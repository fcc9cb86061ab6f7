// POP factors and their timers. See pop.hpp.
#include "wisp/analysis/pop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <ranges>

#include "wisp/analysis/chain_sweep.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"

namespace wisp {

namespace {

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

double ratio(double a, double b) { return b > 0 ? a / b : kUndefined; }

// Value of a timer of rank r at t: linear between breakpoints, constant before the first and after
// the last.
template <typename Field>
double interpolate(const PopTimeline& tl, Rank r, double t, Field field) {
  const std::size_t n = tl.point_count(r);
  if (n == 0) return 0;
  const PopTimeline::Point front = tl.point(r, 0), back = tl.point(r, n - 1);
  if (t <= front.time) return field(front);
  if (t >= back.time) return field(back);
  const auto it = std::ranges::upper_bound(std::views::iota(std::size_t{0}, n), t, {},
                                           [&](std::size_t i) { return tl.point(r, i).time; });
  const PopTimeline::Point b = tl.point(r, *it), a = tl.point(r, *it - 1);
  const double span = b.time - a.time;
  return span > 0 ? field(a) + (field(b) - field(a)) * (t - a.time) / span : field(b);
}

// Timers of one rank without their ideal clocks, which fill_ideal() fills in.
PopTimeline::RankTimers rank_timers(const Trace& trace, const Pag& pag, Rank r) {
  const RankTrace& rt = trace.ranks[r];
  PopTimeline::RankTimers out;
  if (rt.events.empty()) return out;
  out.empty = false;
  const auto& calls = pag.calls[r];
  out.calls.reserve(calls.size());
  double useful = 0, previous = rt.events.front().time;
  out.first = {previous, 0, 0};
  for (const PagCall& c : calls) {
    const double enter = rt.events[c.enter].time, leave = rt.events[c.leave].time;
    useful += enter - previous;
    const double release = std::clamp(pag.seconds(c.ideal_release), enter, leave);
    out.calls.push_back({enter, release, leave, useful, 0, 0});
    previous = leave;
  }
  useful += rt.events.back().time - previous;
  out.last = {rt.events.back().time, useful, 0};
  return out;
}

// Fills the ideal clocks of the timers (rank_timers), from one sweep that keeps
// values only where explicit activities arrive (chain_sweep.hpp) instead of a clock per vertex.
// A rank's events are met in their order, so a cursor per rank finds its calls: its chain links
// them, and a PAG keeps every chain (cycles always contain a message or collective dependency,
// which cycle breaking removes first). Returns the largest clock.
Ticks fill_ideal(const Trace& trace, const Pag& pag, PopTimeline& timeline) {
  const Rank n = trace.rank_count();
  std::vector<std::size_t> next_call(n, 0);
  std::vector<EventIndex> last_seen(n, kNone);
  bool in_order = true;
  Ticks length = 0;
  Rank r = 0;
  const auto holds = [&](Rank rank, std::uint32_t v) {
    return rank < n && v >= pag.first_vertex[rank] && v - pag.first_vertex[rank] < trace.ranks[rank].events.size();
  };
  std::vector<Ticks> stored;
  chain_sweep(
      pag.graph, pag.ideal_variant, stored,
      [](Ticks& f, Ticks e, const Activity& a) {
        f = std::max(f, e + (a.kind == ActivityKind::Computation ? a.duration : Ticks{0}));
      },
      [&](std::uint32_t v, Ticks value) {
        length = std::max(length, value);
        if (!holds(r, v)) r = pag.graph.lane_of(v);
        if (!holds(r, v)) return;  // the virtual start, a synchronisation vertex
        const EventIndex e = v - pag.first_vertex[r];
        if (last_seen[r] != kNone && e <= last_seen[r]) in_order = false;
        last_seen[r] = e;
        PopTimeline::RankTimers& timers = timeline.ranks[r];
        const double clock = pag.seconds(value);
        if (e == 0) timers.first.ideal = clock;
        const auto& calls = pag.calls[r];
        std::size_t& k = next_call[r];
        if (k < calls.size() && e == calls[k].enter) {
          timers.calls[k].ideal_enter = clock;
        } else if (k < calls.size() && e == calls[k].leave) {
          timers.calls[k].ideal_leave = clock;
          ++k;
        }
        if (e + 1 == trace.ranks[r].events.size()) timers.last.ideal = clock;
      });
  for (Rank q = 0; q < n; ++q)
    if (next_call[q] != pag.calls[q].size()) in_order = false;
  if (!in_order) throw Error("POP: the ideal-network sweep did not meet a rank's events in their order");
  return length;
}

}  // namespace

PopTimeline::Point PopTimeline::point(Rank r, std::size_t i) const {
  const RankTimers& timers = ranks[r];
  if (i == 0) return timers.first;
  if (i == 3 * timers.calls.size() + 1) return timers.last;
  const Call& c = timers.calls[(i - 1) / 3];
  switch ((i - 1) % 3) {
    case 0: return {c.enter, c.useful, c.ideal_enter};
    case 1: return {c.release, c.useful, c.ideal_leave};
    default: return {c.leave, c.useful, c.ideal_leave};
  }
}

double PopTimeline::useful_at(Rank r, double t) const {
  return interpolate(*this, r, t, [](const Point& q) { return q.useful; });
}

double PopTimeline::ideal_at(Rank r, double t) const {
  return interpolate(*this, r, t, [](const Point& q) { return q.ideal; });
}

PopTimeline pop_timeline(const Trace& trace, std::uint64_t eager_limit) {
  return pop_timeline(trace, build_pag(trace, PagOptions{RendezvousRule::EagerLimit, eager_limit}));
}

PopTimeline pop_timeline(const Trace& trace, const Pag& pag) {
  if (pag.ideal_variant == 0) throw Error("POP: the program activity graph holds no ideal-network dependencies");
  PopTimeline out;
  out.ranks.resize(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) out.ranks[r] = rank_timers(trace, pag, r);
  out.ideal_runtime = pag.seconds(fill_ideal(trace, pag, out));
  out.start = trace.start_time();
  out.end = trace.end_time();
  return out;
}

PopFactors pop_factors(const PopTimeline& timeline, double from, double to) {
  PopFactors f;
  const auto P = static_cast<Rank>(timeline.ranks.size());
  double sum = 0, ideal_from = 0, ideal_to = 0;
  for (Rank r = 0; r < P; ++r) {
    const double u = timeline.useful_at(r, to) - timeline.useful_at(r, from);
    sum += u;
    f.max_useful = std::max(f.max_useful, u);
    ideal_from = std::max(ideal_from, timeline.ideal_at(r, from));
    ideal_to = std::max(ideal_to, timeline.ideal_at(r, to));
  }
  f.mean_useful = P > 0 ? sum / P : 0;
  f.elapsed = to - from;
  f.ideal = ideal_to - ideal_from;
  f.load_balance = ratio(f.mean_useful, f.max_useful);
  f.serialisation = ratio(f.max_useful, f.ideal);
  f.transfer = ratio(f.ideal, f.elapsed);
  f.parallel_efficiency = ratio(f.mean_useful, f.elapsed);
  f.communication_efficiency = ratio(f.max_useful, f.elapsed);
  return f;
}

PopFactors pop_factors(const PopTimeline& timeline, const PopOptions& options) {
  PopFactors f = pop_factors(timeline, timeline.start, timeline.end);
  if (options.ideal_runtime) {
    f.ideal = *options.ideal_runtime;
    f.serialisation = ratio(f.max_useful, f.ideal);
    f.transfer = ratio(f.ideal, f.elapsed);
  }
  return f;
}

}  // namespace wisp
