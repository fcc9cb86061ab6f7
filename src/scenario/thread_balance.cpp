// Rebalancing the threads of parallel regions. See thread_balance.hpp.
#include "wisp/scenario/thread_balance.hpp"

#include <algorithm>

namespace wisp {

namespace {

// Work of the master in its visit: up to its first OpenMP barrier inside the visit.
double master_work(const Trace& t, const Visit& v) {
  const auto& events = t.ranks[v.rank].events;
  for (EventIndex k = v.enter + 1; k < v.leave; ++k)
    if (events[k].kind == EventKind::Enter && is_openmp_barrier(t.defs.region_of(events[k].ref)))
      return events[k].time - events[v.enter].time;
  return events[v.leave].time - events[v.enter].time;
}

// Work of another thread in its visit of `region` entered within [from, to]; negative if none.
double thread_work(const Definitions& defs, const std::vector<LocationEvent>& events, RegionId region, double from,
                   double to) {
  auto it = std::lower_bound(events.begin(), events.end(), from,
                             [](const LocationEvent& e, double t) { return e.time < t; });
  for (; it != events.end() && it->time <= to; ++it) {
    if (!it->enter || it->region != region) continue;
    const double start = it->time;
    int depth = 0;  // of other regions inside the visit
    for (auto k = it + 1; k != events.end(); ++k) {
      if (k->enter && is_openmp_barrier(defs.regions[k->region])) return k->time - start;
      if (!k->enter && depth == 0) return k->time - start;  // the visit's own leave
      depth += k->enter ? 1 : -1;
    }
    return -1;
  }
  return -1;
}

}  // namespace

std::vector<TeamWork> team_work(const Trace& t, const std::vector<Visit>& visits) {
  std::vector<TeamWork> out;
  out.reserve(visits.size());
  for (const Visit& v : visits) {
    const auto& events = t.ranks[v.rank].events;
    const RegionId region = t.defs.callpaths[events[v.enter].ref].region;
    std::vector<double> work{master_work(t, v)};
    for (std::size_t k = 0; k < t.ranks[v.rank].others.size(); ++k) {
      if (t.defs.ranks[v.rank].others[k].kind != LocationKind::CpuThread) continue;
      const double w = thread_work(t.defs, t.ranks[v.rank].others[k], region, events[v.enter].time,
                                   events[v.leave].time);
      if (w >= 0) work.push_back(w);
    }
    TeamWork team;
    team.threads = work.size();
    for (double w : work) team.max = std::max(team.max, w), team.mean += w;
    team.mean /= static_cast<double>(work.size());
    out.push_back(team);
  }
  return out;
}

}  // namespace wisp
