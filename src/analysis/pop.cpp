// POP factors and their timers. See pop.hpp.
#include "wisp/analysis/pop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/bisect.hpp"
#include "analysis/ghost_sweep.hpp"
#include "analysis/pop_timers.hpp"
#include "wisp/analysis/chain_sweep.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace_summary.hpp"

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
  const std::size_t i = upper_index(n, t, [&](std::size_t k) { return tl.point(r, k).time; });
  const PopTimeline::Point b = tl.point(r, i), a = tl.point(r, i - 1);
  const double span = b.time - a.time;
  return span > 0 ? field(a) + (field(b) - field(a)) * (t - a.time) / span : field(b);
}

// The timers of every rank, breakpoint by breakpoint, from one ideal-network sweep that keeps
// values only where explicit activities arrive (chain_sweep.hpp) instead of a clock per vertex.
// A rank's events are met in their order (its chain links them, and a PAG keeps every chain:
// cycles always contain a message or collective dependency, which cycle breaking removes first).
// Returns the largest clock; nullopt if the sweep found a cycle (spread over processes: `group`).
template <typename Sink>
std::optional<Ticks> replay_timers(const Trace& trace, const Pag& pag, Sink& sink, ProcessGroup* group = nullptr,
                                   GhostTransport transport = GhostTransport::Automatic,
                                   std::size_t round_bytes = kGhostRoundBytes) {
  const Rank n = trace.rank_count();
  TimerFeed<Sink> feed(trace, pag.calls, pag.ticks_per_second, sink);
  Ticks length = 0;
  Rank r = 0;
  const auto holds = [&](Rank rank, std::uint32_t v) {
    return rank < n && v >= pag.first_vertex[rank] && v - pag.first_vertex[rank] < trace.ranks[rank].events.size();
  };
  const auto relax = [](Ticks& f, Ticks e, const Activity& a) {
    f = std::max(f, e + (a.kind == ActivityKind::Computation ? a.duration : Ticks{0}));
  };
  const auto visit = [&](std::uint32_t v, Ticks value) {
    length = std::max(length, value);
    if (!holds(r, v)) r = pag.graph.lane_of(v);
    if (!holds(r, v)) return;  // the virtual start, a synchronisation vertex, a ghost
    feed.visit(r, v - pag.first_vertex[r], value);
  };
  if (group != nullptr) {
    if (!GhostSweep<Ticks>(pag, pag.ideal_variant, *group, transport, round_bytes).run(relax, visit))
      return std::nullopt;
  } else {
    std::vector<Ticks> stored;
    chain_sweep(pag.graph, pag.ideal_variant, stored, relax, visit);
  }
  feed.finish();
  return length;
}

// Keeps every breakpoint: the timeline.
struct TimelineSink {
  PopTimeline& timeline;
  void first(Rank r, const PopTimeline::Point& p) {
    timeline.ranks[r].empty = false;
    timeline.ranks[r].first = p;
  }
  void call(Rank r, const PopTimeline::Call& c) { timeline.ranks[r].calls.push_back(c); }
  void last(Rank r, const PopTimeline::Point& p) { timeline.ranks[r].last = p; }
};

// The factors over [from, to] of any timers with useful_at() and ideal_at().
template <typename Timers>
PopFactors factors_between(const Timers& timers, Rank P, double from, double to) {
  PopFactors f;
  double sum = 0, ideal_from = 0, ideal_to = 0;
  for (Rank r = 0; r < P; ++r) {
    const double u = timers.useful_at(r, to) - timers.useful_at(r, from);
    sum += u;
    f.max_useful = std::max(f.max_useful, u);
    ideal_from = std::max(ideal_from, timers.ideal_at(r, from));
    ideal_to = std::max(ideal_to, timers.ideal_at(r, to));
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

// The whole run's factors; with options.ideal_runtime, T_ideal is that instead of the clock replay's.
PopFactors whole_run(PopFactors f, const PopOptions& options) {
  if (options.ideal_runtime) {
    f.ideal = *options.ideal_runtime;
    f.serialisation = ratio(f.max_useful, f.ideal);
    f.transfer = ratio(f.ideal, f.elapsed);
  }
  return f;
}

}  // namespace

PopTimeline::Point PopTimeline::point(Rank r, std::size_t i) const {
  const RankTimers& timers = ranks[r];
  if (i == 0) return timers.first;
  if (i == 3 * timers.calls.size() + 1) return timers.last;
  const Call& c = timers.calls[(i - 1) / 3];
  switch ((i - 1) % 3) {
    case 0:
      return {c.enter, c.useful, c.ideal_enter};
    case 1:
      return {c.release, c.useful, c.ideal_leave};
    default:
      return {c.leave, c.useful, c.ideal_leave};
  }
}

double PopTimeline::useful_at(Rank r, double t) const {
  return interpolate(*this, r, t, [](const Point& q) { return q.useful; });
}

double PopTimeline::ideal_at(Rank r, double t) const {
  return interpolate(*this, r, t, [](const Point& q) { return q.ideal; });
}

PopTimeline pop_timeline(const Trace& trace, std::uint64_t eager_limit) {
  return pop_timeline(trace, build_pag(trace, eager_limit_options(eager_limit)));
}

PopTimeline pop_timeline(const Trace& trace, const Pag& pag) {
  if (pag.ideal_variant == 0) throw Error("POP: the program activity graph holds no ideal-network dependencies");
  PopTimeline out;
  out.ranks.resize(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) out.ranks[r].calls.reserve(pag.calls[r].size());
  TimelineSink sink{out};
  out.ideal_runtime = pag.seconds(*replay_timers(trace, pag, sink));
  out.start = trace.start_time();
  out.end = trace.end_time();
  return out;
}

std::size_t PopSamples::slot(Rank r, double t) const {
  const auto it = std::lower_bound(times.begin(), times.end(), t);
  if (it == times.end() || *it != t) throw Error("POP: the timers were not sampled at that time");
  return r * times.size() + static_cast<std::size_t>(it - times.begin());
}

PopSamples pop_samples(const Trace& trace, const Pag& pag, std::vector<double> times) {
  if (pag.ideal_variant == 0) throw Error("POP: the program activity graph holds no ideal-network dependencies");
  PopSamples out = unsampled(trace.rank_count(), std::move(times));
  SampleSink sink(out);
  out.ideal_runtime = pag.seconds(*replay_timers(trace, pag, sink));
  out.start = trace.start_time();
  out.end = trace.end_time();
  return out;
}

std::optional<PopSamples> pop_samples(const Trace& trace, const Pag& pag, std::vector<double> times,
                                      ProcessGroup& group, GhostTransport transport, std::size_t round_bytes) {
  if (!trace.share) return pop_samples(trace, pag, std::move(times));
  if (pag.ideal_variant == 0) throw Error("POP: the program activity graph holds no ideal-network dependencies");
  const TraceSummary whole = summary_over(trace, group);
  PopSamples out = unsampled(trace.rank_count(), std::move(times));
  SampleSink sink(out);
  // A cycle broken in one process's part is not broken as the whole graph breaks it: left out too.
  std::optional<Ticks> length = replay_timers(trace, pag, sink, &group, transport, round_bytes);
  if (group.processes() > 1 && pag.anomalies.cycle_activities > 0) length.reset();
  // Every process's rows and largest clock, to every process.
  const RankShare own = *trace.share;
  const std::vector<RankShare> shares = gather_shares(group, own);
  const std::size_t n = out.times.size();
  Packer mine;
  mine.put<std::uint8_t>(length ? 1 : 0).put<Ticks>(length.value_or(0));
  mine.put_vector(std::vector<double>(out.useful.begin() + own.first * n, out.useful.begin() + own.last * n));
  mine.put_vector(std::vector<double>(out.ideal.begin() + own.first * n, out.ideal.begin() + own.last * n));
  Ticks largest = 0;
  bool cycle = false;
  const std::vector<std::string> parts = all_gather(group, mine.take());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    Unpacker in(parts[p]);
    cycle |= in.get<std::uint8_t>() == 0;
    largest = std::max(largest, in.get<Ticks>());
    const std::vector<double> useful = in.get_vector<double>(), ideal = in.get_vector<double>();
    if (useful.size() != shares[p].size() * n || ideal.size() != useful.size())
      throw Error("POP over processes: a process's timers do not cover its ranks");
    std::copy(useful.begin(), useful.end(), out.useful.begin() + shares[p].first * n);
    std::copy(ideal.begin(), ideal.end(), out.ideal.begin() + shares[p].first * n);
  }
  if (cycle) return std::nullopt;
  out.start = whole.start_time();
  out.end = whole.end_time();
  out.ideal_runtime = pag.seconds(largest);
  return out;
}

PopFactors pop_factors(const PopTimeline& timeline, double from, double to) {
  return factors_between(timeline, static_cast<Rank>(timeline.ranks.size()), from, to);
}

PopFactors pop_factors(const PopTimeline& timeline, const PopOptions& options) {
  return whole_run(pop_factors(timeline, timeline.start, timeline.end), options);
}

PopFactors pop_factors(const PopSamples& samples, double from, double to) {
  return factors_between(samples, static_cast<Rank>(samples.rank_count), from, to);
}

PopFactors pop_factors(const PopSamples& samples, const PopOptions& options) {
  return whole_run(pop_factors(samples, samples.start, samples.end), options);
}

}  // namespace wisp
