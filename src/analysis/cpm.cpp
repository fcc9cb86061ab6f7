// Critical path method. See cpm.hpp.
#include "wisp/analysis/cpm.hpp"

#include "wisp/analysis/chain_sweep.hpp"

#include <algorithm>
#include <limits>

namespace wisp {

Cpm critical_path_method(const ActivityGraph& g) {
  Cpm cpm;
  cpm.length = longest_path(g, [](const Activity& a) { return a.duration; }, cpm.earliest);
  cpm.latest.assign(g.vertex_count, cpm.length);
  g.for_each_in_reverse_order([&](std::uint32_t v) {
    Ticks latest = cpm.length;
    g.for_each_outgoing(v, [&](std::uint32_t, const Activity& act) {
      latest = std::min(latest, cpm.latest[act.to] - act.duration);
    });
    cpm.latest[v] = latest;
  });
  return cpm;
}

ActivityTimes activity_times(const ActivityGraph& g, const Cpm& cpm, std::uint32_t activity) {
  const Activity a = g.activity(activity);
  ActivityTimes t;
  t.es = cpm.earliest[a.from];
  t.ef = t.es + a.duration;
  t.lf = cpm.latest[a.to];
  t.ls = t.lf - a.duration;
  t.total_slack = t.ls - t.es;
  const Ticks successors_start = g.is_leaf(a.to) ? cpm.length : cpm.earliest[a.to];
  t.free_slack = successors_start - t.ef;
  return t;
}

namespace {

// Rank of an incoming activity by the tie rule of critical_path(): lower is preferred.
struct Preference {
  int local;           // 0: local activity
  int same_lane;       // 0: from the lane the path is on
  std::uint32_t lane;  // lower lane first (kNone last)
  std::uint32_t position;  // among the vertex's incoming activities
  auto operator<=>(const Preference&) const = default;
};

// The walk of critical_path(): `ends_last(u)` tells whether u's earliest time is the length,
// `tight(act, v)` whether incoming activity act lies on a longest path to v (v is critical).
template <typename EndsLast, typename Tight>
std::vector<std::uint32_t> walk_critical(const ActivityGraph& g, EndsLast&& ends_last, Tight&& tight) {
  std::uint32_t v = kNone;
  for (std::uint32_t u = 0; u < g.vertex_count; ++u) {
    if (!g.is_leaf(u) || !ends_last(u)) continue;
    if (!g.has_incoming(u)) continue;  // isolated vertex: no path ends here
    if (v == kNone || g.lane_of(u) < g.lane_of(v)) v = u;
  }
  std::vector<std::uint32_t> path;
  if (v == kNone) return path;
  std::uint32_t lane = g.lane_of(v);
  for (;;) {
    std::uint32_t best = kNone;
    Preference best_pref{};
    std::uint32_t best_from = kNone, position = 0;  // incoming activities are listed in the order added
    g.for_each_incoming(v, [&](std::uint32_t a, const Activity& act) {
      ++position;
      if (!tight(act, v)) return;
      const std::uint32_t from_lane = g.lane_of(act.from);
      const Preference p{is_local(act.kind) ? 0 : 1, from_lane == lane && lane != kNone ? 0 : 1,
                         from_lane, position};
      if (best == kNone || p < best_pref) {
        best = a;
        best_from = act.from;
        best_pref = p;
      }
    });
    if (best == kNone) break;
    path.push_back(best);
    v = best_from;
    if (g.lane_of(v) != kNone) lane = g.lane_of(v);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

std::vector<std::uint32_t> critical_path(const ActivityGraph& g, const Cpm& cpm) {
  return walk_critical(
      g, [&](std::uint32_t u) { return cpm.earliest[u] == cpm.length; },
      [&](const Activity& act, std::uint32_t v) { return cpm.earliest[act.from] + act.duration == cpm.earliest[v]; });
}

// On a critical vertex v (earliest = latest), an incoming activity from u is tight iff u is
// critical too and latest(u) + d = latest(v): earliest(u) <= latest(u) <= latest(v) - d always.
Cpm critical_path_method(const ActivityGraph& g, std::vector<std::uint32_t>& critical) {
  Cpm cpm;
  std::vector<Ticks>& tail = cpm.latest;  // the longest path to a leaf, then latest = length - tail
  tail.assign(g.vertex_count, 0);
  g.for_each_in_reverse_order([&](std::uint32_t v) {
    Ticks t = 0;
    g.for_each_outgoing(v, [&](std::uint32_t, const Activity& act) { t = std::max(t, tail[act.to] + act.duration); });
    tail[v] = t;
    cpm.length = std::max(cpm.length, t);
  });
  std::vector<bool> zero_slack(g.vertex_count, false);
  std::vector<Ticks> stored;
  chain_sweep(
      g, kFirstVariant, stored, [](Ticks& f, Ticks e, const Activity& a) { f = std::max(f, e + a.duration); },
      [&](std::uint32_t v, Ticks earliest) { zero_slack[v] = earliest + tail[v] == cpm.length; });
  for (Ticks& t : tail) t = cpm.length - t;
  critical = walk_critical(
      g, [&](std::uint32_t u) { return zero_slack[u] && cpm.latest[u] == cpm.length; },
      [&](const Activity& act, std::uint32_t v) {
        return zero_slack[act.from] && cpm.latest[act.from] + act.duration == cpm.latest[v];
      });
  return cpm;
}

}  // namespace wisp
