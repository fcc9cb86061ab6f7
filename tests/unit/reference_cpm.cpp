// The textbook critical path method. See reference_cpm.hpp.
#include "reference_cpm.hpp"

#include <algorithm>
#include <tuple>

#include "wisp/analysis/cpm.hpp"
#include "wisp/error.hpp"

namespace wisp::test {

DenseCpm dense_cpm(const ActivityGraph& g) {
  DenseCpm cpm;
  cpm.length = longest_path(
      g, [](const Activity& a) { return a.duration; }, cpm.earliest);
  cpm.latest.assign(g.vertex_count, cpm.length);
  for (auto run = g.order.rbegin(); run != g.order.rend(); ++run)
    for (std::uint32_t v = run->first + run->count; v-- > run->first;)
      g.for_each_outgoing(v, [&](std::uint32_t, const Activity& a) {
        cpm.latest[v] = std::min(cpm.latest[v], cpm.latest[a.to] - a.duration);
      });
  return cpm;
}

ActivityTimes activity_times(const ActivityGraph& g, const DenseCpm& cpm, std::uint32_t activity) {
  const Activity a = g.activity(activity);
  ActivityTimes t;
  t.es = cpm.earliest[a.from];
  t.ef = t.es + a.duration;
  t.lf = cpm.latest[a.to];
  t.ls = t.lf - a.duration;
  t.total_slack = t.ls - t.es;
  t.free_slack = (g.is_leaf(a.to) ? cpm.length : cpm.earliest[a.to]) - t.ef;
  return t;
}

std::vector<std::uint32_t> critical_path(const ActivityGraph& g, const DenseCpm& cpm) {
  std::uint32_t v = kNone;
  for (std::uint32_t u = 0; u < g.vertex_count; ++u)
    if (g.is_leaf(u) && g.has_incoming(u) && cpm.earliest[u] == cpm.length &&
        (v == kNone || g.lane_of(u) < g.lane_of(v)))
      v = u;
  std::vector<std::uint32_t> path;
  for (std::uint32_t lane = v == kNone ? kNone : g.lane_of(v); v != kNone;) {
    std::uint32_t best = kNone, position = 0;
    std::tuple<bool, bool, std::uint32_t, std::uint32_t> best_rank;  // not local, not this lane, lane, position
    g.for_each_incoming(v, [&](std::uint32_t id, const Activity& a) {
      ++position;
      if (cpm.earliest[a.from] + a.duration != cpm.earliest[v]) return;
      const std::uint32_t from = g.lane_of(a.from);
      const auto rank = std::tuple(!is_local(a.kind), !(from == lane && lane != kNone), from, position);
      if (best == kNone || rank < best_rank) best = id, best_rank = rank;
    });
    if (best == kNone) break;
    path.push_back(best);
    v = g.activity(best).from;
    if (g.lane_of(v) != kNone) lane = g.lane_of(v);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

// The analysis's CPM of g and its critical path, checked against the reference's.
Cpm checked_cpm(const ActivityGraph& g, const DenseCpm& cpm, std::vector<std::uint32_t>& critical) {
  Cpm lean = critical_path_method(g, critical);
  if (lean.length != cpm.length || critical != critical_path(g, cpm))
    throw Error("the critical path method and its reference disagree");
  return lean;
}

}  // namespace

NearCriticalPaths near_critical_paths(const ActivityGraph& g, const DenseCpm& cpm, const NearCriticalQuery& query) {
  std::vector<std::uint32_t> critical;
  const Cpm lean = checked_cpm(g, cpm, critical);
  return wisp::near_critical_paths(g, lean, query, critical);
}

std::vector<MbmRow> maximum_benefit(const ActivityGraph& g, const DenseCpm& cpm, const NearCriticalPaths& paths,
                                    unsigned threads) {
  std::vector<std::uint32_t> critical;
  return wisp::maximum_benefit(g, checked_cpm(g, cpm, critical), paths, threads);
}

Ticks mbm_all(const ActivityGraph& g, const DenseCpm& cpm, CallpathId callpath) {
  std::vector<Ticks> earliest;
  return cpm.length -
         longest_path(
             g, [callpath](const Activity& a) { return a.callpath == callpath ? 0 : a.duration; }, earliest);
}

}  // namespace wisp::test
