// Rebalancing the threads of parallel regions. See thread_balance.hpp.
#include "wisp/scenario/thread_balance.hpp"

#include <algorithm>
#include <map>

namespace wisp {

namespace {

// The end of the master's work in its visit: its first OpenMP barrier's enter inside the visit.
double master_work_end(const Trace& t, const Visit& v) {
  const auto& events = t.ranks[v.rank].events;
  for (EventIndex k = v.enter + 1; k < v.leave; ++k)
    if (events[k].kind == EventKind::Enter && is_openmp_barrier(t.defs.region_of(events[k].callpath())))
      return events[k].time;
  return events[v.leave].time;
}

double master_work(const Trace& t, const Visit& v) {
  return master_work_end(t, v) - t.ranks[v.rank].events[v.enter].time;
}

// A thread's regions that matter for one selected region: its visits and the OpenMP barriers.
struct ThreadVisits {
  std::vector<RegionVisit> region, barriers;
};

// The end of a thread's work in its visit `v`: its first OpenMP barrier's enter in it (the visit's
// leave when it has none).
double thread_work_end(const ThreadVisits& t, const RegionVisit& v) {
  const auto barrier = std::lower_bound(t.barriers.begin(), t.barriers.end(), v.enter,
                                        [](const RegionVisit& b, double x) { return b.enter < x; });
  return barrier != t.barriers.end() && barrier->enter <= v.leave ? barrier->enter : v.leave;
}

// Work of a thread in its visit overlapping the master's [from, to]; negative if it has no such visit.
double thread_work(const ThreadVisits& t, RegionId region, double from, double to) {
  const RegionVisit* v = overlapping_visit(t.region, region, from, to);
  return v ? thread_work_end(t, *v) - v->enter : -1;
}

// A visit's times mapped so that its work (enter .. work end) takes `mean`: the work part and the
// rest (the barrier) are each stretched linearly; enter and leave stay.
struct BalancedVisit {
  double enter, work_end, leave, mean;
  double work(double t) const {  // a time of the work part
    const double end = std::min(enter + mean, leave);
    return work_end > enter ? enter + (t - enter) * (end - enter) / (work_end - enter) : end;
  }
  double rest(double t) const {  // a time after the work
    const double end = std::min(enter + mean, leave);
    return leave > work_end ? end + (t - work_end) * (leave - end) / (leave - work_end) : leave;
  }
  double map(double t) const {  // by time alone (thread records)
    if (t <= enter || t >= leave) return t;
    return t <= work_end ? work(t) : rest(t);
  }
};

template <class Timed>
void remap(std::vector<Timed>& records, const BalancedVisit& b) {
  for (Timed& e : records) e.time = b.map(e.time);
}

// A thread's events of one visit, by position: the region's enter (found by its time), the first
// OpenMP barrier enter in it (the work's end, even when it shares its time with the leaves) and the
// region's leave stay ordered.
void remap_visit(const Definitions& defs, std::vector<LocationEvent>& events, RegionId region, const BalancedVisit& b) {
  std::size_t i = 0;
  while (i < events.size() && !(events[i].enter && events[i].region == region && events[i].time >= b.enter)) ++i;
  bool working = true;
  for (int depth = 0; i < events.size(); ++i) {
    LocationEvent& e = events[i];
    depth += e.enter ? 1 : -1;
    if (depth == 0) break;  // the region's leave
    if (working)
      e.time = b.work(e.time);
    else
      e.time = b.rest(e.time);
    if (working && e.enter && is_openmp_barrier(defs.regions[e.region])) working = false;
  }
}

bool has_mpi_call(const Trace& t, const Visit& v) {
  const auto& events = t.ranks[v.rank].events;
  for (EventIndex k = v.enter + 1; k < v.leave; ++k)
    if (events[k].kind == EventKind::Enter && is_mpi(t.defs.region_of(events[k].callpath()).kind)) return true;
  return false;
}

// One instance: the master's and every CPU thread's work becomes the team's mean.
void balance_instance(Trace& t, const Visit& v, double mean, std::vector<ThreadVisits>& threads) {
  RankTrace& rt = t.ranks[v.rank];
  const RegionId region = t.defs.callpaths[rt.events[v.enter].callpath()].region;
  const double enter = rt.events[v.enter].time, leave = rt.events[v.leave].time;
  if (!has_mpi_call(t, v)) {  // MPI inside the region keeps the master's uniform stretch
    const BalancedVisit master{enter, master_work_end(t, v), leave, mean};
    bool working = true;
    for (EventIndex k = v.enter + 1; k < v.leave; ++k) {
      Event& e = rt.events[k];
      e.time = working ? master.work(e.time) : master.rest(e.time);
      if (working && e.kind == EventKind::Enter && is_openmp_barrier(t.defs.region_of(e.callpath()))) working = false;
    }
    if (!rt.thread_records.empty()) remap(rt.thread_records[0], master);
  }
  for (std::size_t k = 0, cpu = 0; k < rt.others.size(); ++k) {
    if (t.defs.ranks[v.rank].others[k].kind != LocationKind::CpuThread) continue;
    const ThreadVisits& thread = threads[cpu++];
    const RegionVisit* visit = overlapping_visit(thread.region, region, enter, leave);
    if (!visit) continue;
    const BalancedVisit b{visit->enter, thread_work_end(thread, *visit), visit->leave, mean};
    remap_visit(t.defs, rt.others[k], region, b);
    if (k + 1 < rt.thread_records.size()) remap(rt.thread_records[k + 1], b);
  }
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
    const RegionId region = t.defs.callpaths[events[v.enter].callpath()].region;
    auto it = threads.find({v.rank, region});
    if (it == threads.end()) it = threads.emplace(std::pair{v.rank, region}, threads_of(t, v.rank, region)).first;
    std::vector<double> work{master_work(t, v)};
    for (const ThreadVisits& thread : it->second)
      if (const double w = thread_work(thread, region, events[v.enter].time, events[v.leave].time); w >= 0)
        work.push_back(w);
    TeamWork team;
    team.threads = work.size();
    team.work = work;
    for (double w : work) team.max = std::max(team.max, w), team.mean += w;
    team.mean /= static_cast<double>(work.size());
    out.push_back(team);
  }
  return out;
}

void balance_team_events(Trace& t, const std::vector<Visit>& visits, const std::vector<TeamWork>& teams) {
  std::map<std::pair<Rank, RegionId>, std::vector<ThreadVisits>> threads;
  for (std::size_t k = 0; k < visits.size(); ++k) {
    const Visit& v = visits[k];
    const RegionId region = t.defs.callpaths[t.ranks[v.rank].events[v.enter].callpath()].region;
    auto it = threads.find({v.rank, region});
    if (it == threads.end()) it = threads.emplace(std::pair{v.rank, region}, threads_of(t, v.rank, region)).first;
    balance_instance(t, v, teams[k].mean, it->second);
  }
}

}  // namespace wisp
