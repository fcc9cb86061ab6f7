// Rebalancing the threads of parallel regions. See thread_balance.hpp.
#include "wisp/scenario/thread_balance.hpp"

#include <algorithm>
#include <map>

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

// A thread's regions that matter for one selected region: its visits and the OpenMP barriers.
struct ThreadVisits {
  std::vector<RegionVisit> region, barriers;
};

// Work of a thread in its visit overlapping the master's [from, to]: up to its first OpenMP barrier
// in it (the whole visit when it has none); negative if it has no such visit.
double thread_work(const ThreadVisits& t, RegionId region, double from, double to) {
  const RegionVisit* v = overlapping_visit(t.region, region, from, to);
  if (!v) return -1;
  const auto barrier = std::lower_bound(t.barriers.begin(), t.barriers.end(), v->enter,
                                        [](const RegionVisit& b, double x) { return b.enter < x; });
  if (barrier != t.barriers.end() && barrier->enter <= v->leave) return barrier->enter - v->enter;
  return v->leave - v->enter;
}

// The CPU threads' visits of `region` and barriers, once per rank.
std::vector<ThreadVisits> threads_of(const Trace& t, Rank r, RegionId region) {
  std::vector<ThreadVisits> out;
  for (std::size_t k = 0; k < t.ranks[r].others.size(); ++k) {
    if (t.defs.ranks[r].others[k].kind != LocationKind::CpuThread) continue;
    const auto& events = t.ranks[r].others[k];
    out.push_back({region_visits(events, [&](RegionId x) { return x == region; }),
                   region_visits(events, [&](RegionId x) { return is_openmp_barrier(t.defs.regions[x]); })});
  }
  return out;
}

}  // namespace

std::vector<TeamWork> team_work(const Trace& t, const std::vector<Visit>& visits) {
  std::vector<TeamWork> out;
  out.reserve(visits.size());
  std::map<std::pair<Rank, RegionId>, std::vector<ThreadVisits>> threads;
  for (const Visit& v : visits) {
    const auto& events = t.ranks[v.rank].events;
    const RegionId region = t.defs.callpaths[events[v.enter].ref].region;
    auto it = threads.find({v.rank, region});
    if (it == threads.end()) it = threads.emplace(std::pair{v.rank, region}, threads_of(t, v.rank, region)).first;
    std::vector<double> work{master_work(t, v)};
    for (const ThreadVisits& thread : it->second)
      if (const double w = thread_work(thread, region, events[v.enter].time, events[v.leave].time); w >= 0)
        work.push_back(w);
    TeamWork team;
    team.threads = work.size();
    for (double w : work) team.max = std::max(team.max, w), team.mean += w;
    team.mean /= static_cast<double>(work.size());
    out.push_back(team);
  }
  return out;
}

}  // namespace wisp
