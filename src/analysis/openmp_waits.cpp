// OpenMP wait states. See openmp_waits.hpp.
#include "wisp/analysis/openmp_waits.hpp"

#include <algorithm>

namespace wisp {

namespace {

constexpr std::uint8_t kParallelRole = 5, kExplicitBarrierRole = 15;

// Every barrier the master enters, with its team: each member waits for the last to arrive.
void barrier_waits(const Trace& t, Rank r, OpenMpWaits& out) {
  const auto barrier = [&](RegionId region) { return is_openmp_barrier(t.defs.regions[region]); };
  std::vector<std::vector<RegionVisit>> threads;
  for (std::size_t k = 0; k < t.ranks[r].others.size(); ++k)
    if (t.defs.ranks[r].others[k].kind == LocationKind::CpuThread)
      threads.push_back(region_visits(t.ranks[r].others[k], barrier));
  const auto& events = t.ranks[r].events;
  const double tick = 1.0 / static_cast<double>(t.defs.clock.ticks_per_second);
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != EventKind::Enter && events[i].kind != EventKind::Leave) continue;
    const Region& region = t.defs.region_of(events[i].callpath());
    if (!is_openmp_barrier(region)) continue;
    if (events[i].kind == EventKind::Enter) {
      open.push_back(i);
      continue;
    }
    if (open.empty()) continue;
    const std::size_t enter = open.back();
    open.pop_back();
    std::vector<double> enters{events[enter].time};
    for (const auto& visits : threads)  // the last thread enters as the team leaves: one tick of slack
      if (const RegionVisit* v = overlapping_visit(visits, t.defs.callpaths[events[i].callpath()].region,
                                                   events[enter].time, events[i].time, tick))
        enters.push_back(v->enter);
    const double last = *std::max_element(enters.begin(), enters.end());
    double wait = 0;
    for (double e : enters) wait += last - e;
    CallpathMatrix& m = region.otf2_role == kExplicitBarrierRole ? out.ebarrier : out.ibarrier;
    m.at(slot_of(events[enter].callpath()), r) += wait;
  }
}

bool in_parallel_region(const Definitions& defs, CallpathId cp) {
  for (; cp != kNone; cp = defs.callpaths[cp].parent)
    if (defs.regions[defs.callpaths[cp].region].otf2_role == kParallelRole) return true;
  return false;
}

}  // namespace

OpenMpWaits find_openmp_waits(const Trace& t, const Profile& profile) {
  OpenMpWaits out;
  bool hybrid = false;
  for (const Location& rank : t.defs.ranks) hybrid |= !rank.others.empty();
  if (!hybrid) return out;
  out.ibarrier = out.ebarrier = out.idle = CallpathMatrix(t);
  for (Rank r = 0; r < t.rank_count(); ++r) {
    barrier_waits(t, r, out);
    std::size_t threads = 0;
    for (const ThreadLocation& l : t.defs.ranks[r].others) threads += l.kind == LocationKind::CpuThread;
    for (std::uint32_t slot = 0; slot < out.idle.slots; ++slot)
      if (!in_parallel_region(t.defs, callpath_of_slot(slot)))
        out.idle.at(slot, r) = static_cast<double>(threads) * profile.time.at(slot, r);
  }
  return out;
}

}  // namespace wisp
