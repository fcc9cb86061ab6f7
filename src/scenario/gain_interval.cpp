// The gain interval. See gain_interval.hpp.
//
// The variability: a run is a chain of synchronisation intervals, and the gain is the sum of what
// each interval gains (its length in the identity minus its length in the scenario). Intervals are
// drawn again among those of their kind (closed by the same collective call path: one iteration's
// step, not the setup's), a stratified bootstrap; kinds seen fewer than kMinSegments times are
// one-offs, kept as they are. The start-up cannot be drawn again either, but the trace shows how
// much it jitters: the ranks' launch skew, added on both sides (launch_skew). Iteration noise
// the trace shows (a work() that takes 10.2 ms in one iteration and 10.9 in the next, a call that
// costs 20 µs here and 130 µs there) makes those per-interval gains scatter; drawn again with
// replacement, their sum scatters as the gain of another run would. A fixed seed keeps the
// outputs reproducible.
#include "wisp/scenario/gain_interval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

namespace wisp {

namespace {

constexpr int kResamples = 2000;
constexpr std::size_t kFractionSegments = 50;

// When every member of each complete collective on the communicator of all ranks had left it.
std::vector<SyncBoundary> collective_ends(const Trace& t) {
  std::vector<SyncBoundary> ends;
  const CommId world = t.defs.world;
  if (world == kNone || world >= t.defs.comms.size() || t.defs.comms[world].size() != t.rank_count()) return ends;
  for (const CollectiveInstance& c : t.collectives) {
    if (c.comm != world || !c.complete) continue;
    SyncBoundary b;
    for (std::uint32_t i = 0; i < c.count; ++i) {
      const CollectiveMember& m = t.members(c)[i];
      const RankTrace& rt = t.ranks[m.rank];
      const CollectiveRecord& r = rt.collectives[m.record];
      if (r.end == kNone) continue;
      b.end = std::max(b.end, rt.events[r.end].time);
      if (i == 0)
        for (EventIndex k = r.end + 1; k < rt.events.size(); ++k)
          if (rt.events[k].kind == EventKind::Leave) {
            b.kind = rt.events[k].callpath();
            break;
          }
    }
    ends.push_back(b);
  }
  return ends;
}

// Without such collectives: when the last rank reached the same fraction of its events.
std::vector<SyncBoundary> fraction_ends(const Trace& t) {
  std::vector<SyncBoundary> ends(kFractionSegments);
  for (std::size_t k = 0; k < kFractionSegments; ++k)
    for (const RankTrace& rt : t.ranks) {
      if (rt.events.empty()) continue;
      const std::size_t i = (k + 1) * (rt.events.size() - 1) / (kFractionSegments + 1);
      ends[k].end = std::max(ends[k].end, rt.events[i].time);
    }
  return ends;
}

// Interval lengths: from the start to each boundary (in the identity's order), then to the end.
std::vector<double> lengths(const SyncIntervals& t, const std::vector<SyncBoundary>& ends,
                            const std::vector<std::size_t>& order) {
  std::vector<double> out;
  double previous = t.start;
  for (std::size_t k : order) {
    out.push_back(ends[k].end - previous);
    previous = ends[k].end;
  }
  out.push_back(t.end - previous);
  return out;
}

// How far apart the ranks entered MPI_Init (else started): the launch's own jitter. The start-up
// ends when the last rank is ready, so another run's start-up differs by about as much, a change
// of the run the scenario does not make and a rerun would.
double launch_skew(const Trace& t) {
  double first = 0, last = 0;
  bool any = false;
  for (const RankTrace& rt : t.ranks) {
    if (rt.events.empty()) continue;
    double start = rt.events.front().time;
    for (const CallSpan& c : rt.mpi_calls) {
      const MpiFunction f = t.defs.region_of(rt.events[c.enter].callpath()).mpi;
      if (f == MpiFunction::Init || f == MpiFunction::InitThread) {
        start = rt.events[c.enter].time;
        break;
      }
    }
    first = any ? std::min(first, start) : start;
    last = any ? std::max(last, start) : start;
    any = true;
  }
  return last - first;
}

double percentile(std::vector<double>& v, double q) {
  const auto k = static_cast<std::size_t>(
      std::clamp(q * static_cast<double>(v.size() - 1), 0.0, static_cast<double>(v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

SyncIntervals sync_intervals(const Trace& trace) {
  return SyncIntervals{collective_ends(trace), fraction_ends(trace), trace.start_time(), trace.end_time(),
                       launch_skew(trace)};
}

GainVariability gain_variability(const Trace& identity, const Trace& scenario) {
  return gain_variability(sync_intervals(identity), sync_intervals(scenario));
}

GainVariability gain_variability(const SyncIntervals& identity, const SyncIntervals& scenario) {
  GainVariability out;
  const bool by_collectives = identity.collective_ends.size() == scenario.collective_ends.size() &&
                              identity.collective_ends.size() >= kMinSegments;
  const std::vector<SyncBoundary>& a = by_collectives ? identity.collective_ends : identity.fraction_ends;
  const std::vector<SyncBoundary>& b = by_collectives ? scenario.collective_ends : scenario.fraction_ends;
  std::vector<std::size_t> order(a.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a[x].end < a[y].end; });
  const std::vector<double> before = lengths(identity, a, order), after = lengths(scenario, b, order);
  if (before.size() < kMinSegments) return out;
  // The gains by kind of interval (the last one, to the run's end, is a kind of its own).
  std::map<CallpathId, std::vector<double>> strata;
  double fixed = 0;
  for (std::size_t k = 0; k < before.size(); ++k) {
    const CallpathId kind = k < order.size() ? a[order[k]].kind : kNone - 1;
    strata[kind].push_back(before[k] - after[k]);
  }
  std::mt19937_64 random(20261126);
  std::vector<double> sums(kResamples, 0.0);
  for (const auto& [kind, gains] : strata) {
    if (gains.size() < kMinSegments) {  // one-off stretches (set-up, the end): nothing to draw them from
      fixed += gains[0];
      continue;
    }
    std::uniform_int_distribution<std::size_t> pick(0, gains.size() - 1);
    for (double& sum : sums)
      for (std::size_t k = 0; k < gains.size(); ++k) sum += gains[pick(random)];
  }
  out.segments = before.size();
  out.startup = identity.launch_skew;
  out.low = fixed + percentile(sums, 0.05) - out.startup;
  out.high = fixed + percentile(sums, 0.95) + out.startup;
  return out;
}

GainInterval gain_interval(double point, const CostHypotheses& hypotheses, const GainVariability& variability) {
  GainInterval g;
  static_cast<CostHypotheses&>(g) = hypotheses;
  g.point = point;
  g.variability = variability;
  if (!std::isfinite(point)) {
    g.note = "no gain interval: the point estimate is not finite";
    return g;
  }
  g.low = g.high = point;
  for (const std::optional<double>& h : {g.fixed_costs, g.model_only, g.network_scaled})
    if (h && std::isfinite(*h)) g.low = std::min(g.low, *h), g.high = std::max(g.high, *h);
  if (variability.segments > 0) {
    g.low -= std::max(0.0, point - variability.low);
    g.high += std::max(0.0, variability.high - point);
  }
  g.available = true;
  std::vector<std::string> missing;
  if (!g.fixed_costs) missing.push_back("fixed costs");
  if (!g.model_only) missing.push_back("minima model");
  if (variability.segments == 0) missing.push_back("run-to-run variability (too few synchronisation intervals)");
  if (!missing.empty()) {
    g.note = "gain interval without ";
    for (std::size_t i = 0; i < missing.size(); ++i) g.note += (i ? ", " : "") + missing[i];
  }
  return g;
}

double share_held(const GainInterval& g, const std::vector<double>& measured_gains) {
  if (!g.available || measured_gains.empty()) return 0;
  const auto inside =
      std::count_if(measured_gains.begin(), measured_gains.end(), [&](double m) { return g.low <= m && m <= g.high; });
  return static_cast<double>(inside) / static_cast<double>(measured_gains.size());
}

std::string interval_warning(const GainInterval& g) {
  if (!g.available) return "";
  if (g.low < 0 && g.high > 0)
    return fmt::format(
        "the gain interval [{:.6f}, {:.6f}] s straddles zero: the change may not pay off at all; "
        "the cost hypotheses or the run's own noise can reverse it",
        g.low, g.high);
  if (g.high - g.low > 0.5 * std::abs(g.point))
    return fmt::format(
        "the gain interval [{:.6f}, {:.6f}] s is wider than half the gain: take the point estimate "
        "as an order of magnitude and look at which hypothesis drives it",
        g.low, g.high);
  return "";
}

}  // namespace wisp
