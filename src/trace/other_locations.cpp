// Other locations follow their master. See other_locations.hpp.
#include "wisp/trace/other_locations.hpp"

#include <algorithm>

#include "wisp/trace/trace.hpp"

namespace wisp {

double follow_master(const std::vector<double>& before, const std::vector<double>& after, double t) {
  if (before.empty()) return t;
  const auto next = std::upper_bound(before.begin(), before.end(), t);  // first master event after t
  if (next == before.begin()) return t + (after.front() - before.front());
  const std::size_t k = static_cast<std::size_t>(next - before.begin()) - 1;  // last one at or before t
  if (next == before.end() || before[k + 1] <= before[k]) return t + (after[k] - before[k]);
  const double fraction = (t - before[k]) / (before[k + 1] - before[k]);
  return after[k] + fraction * (after[k + 1] - after[k]);
}

void move_other_locations(const RankTrace& original, RankTrace& moved) {
  if (original.others.empty() && original.thread_records.empty() && original.rma_records.empty() &&
      original.metrics.empty() && original.other_metrics.empty())
    return;
  std::vector<double> before, after;
  before.reserve(original.events.size());
  after.reserve(moved.events.size());
  for (const Event& e : original.events) before.push_back(e.time);
  for (const Event& e : moved.events) after.push_back(e.time);
  for (auto& location : moved.others)
    for (LocationEvent& e : location) e.time = follow_master(before, after, e.time);
  for (auto& location : moved.thread_records)
    for (ThreadRecord& e : location) e.time = follow_master(before, after, e.time);
  for (auto& location : moved.rma_records)
    for (RmaRecord& e : location) e.time = follow_master(before, after, e.time);
  move_metrics(before, after, moved.metrics);
  for (auto& location : moved.other_metrics)  // one at a region event gets that event's new time: same rule
    for (MetricSample& s : location.samples) s.time = follow_master(before, after, s.time);
}

std::string_view to_string(RmaRecordKind k) {
  static constexpr std::string_view names[] = {"RMA_WIN_CREATE", "RMA_WIN_DESTROY", "RMA_PUT", "RMA_GET",
                                               "RMA_OP_COMPLETE_BLOCKING"};
  return names[static_cast<int>(k)];
}

std::string_view to_string(ThreadRecordKind k) {
  static constexpr std::string_view names[kThreadRecordKindCount] = {
      "THREAD_FORK",         "THREAD_JOIN",        "THREAD_TEAM_BEGIN",  "THREAD_TEAM_END",     "THREAD_ACQUIRE_LOCK",
      "THREAD_RELEASE_LOCK", "THREAD_TASK_CREATE", "THREAD_TASK_SWITCH", "THREAD_TASK_COMPLETE"};
  return names[static_cast<int>(k)];
}

}  // namespace wisp

namespace wisp {

std::vector<RegionVisit> region_visits(const std::vector<LocationEvent>& events,
                                       const std::function<bool(RegionId)>& wanted) {
  std::vector<RegionVisit> out;
  std::vector<std::size_t> open;
  for (const LocationEvent& e : events) {
    if (!wanted(e.region)) continue;
    if (e.enter) {
      open.push_back(out.size());
      out.push_back({e.time, e.time, e.region});
    } else if (!open.empty()) {
      out[open.back()].leave = e.time;
      open.pop_back();
    }
  }
  return out;
}

const RegionVisit* overlapping_visit(const std::vector<RegionVisit>& visits, RegionId region, double enter,
                                     double leave, double slack) {
  auto it = std::lower_bound(visits.begin(), visits.end(), enter - slack,
                             [](const RegionVisit& v, double t) { return v.leave < t; });
  for (; it != visits.end() && it->enter <= leave + slack; ++it)
    if (it->region == region) return &*it;
  return nullptr;
}

namespace {

constexpr std::uint8_t kParallelRole = 5;

// The master's region enters and leaves, as another location's are kept.
std::vector<LocationEvent> master_regions(const Definitions& defs, const RankTrace& rt) {
  std::vector<LocationEvent> out;
  for (const Event& e : rt.events)
    if (e.kind == EventKind::Enter || e.kind == EventKind::Leave)
      out.push_back({e.time, defs.callpaths[e.callpath()].region, e.kind == EventKind::Enter});
  return out;
}

}  // namespace

// A master's parallel visit counts every thread whose visit of the region overlaps it; a thread's
// parallel visit no master visit counts is an orphan.
void check_teams(Trace& trace) {
  const auto parallel = [&](RegionId region) { return trace.defs.regions[region].otf2_role == kParallelRole; };
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    if (trace.ranks[r].others.empty()) continue;
    const std::vector<RegionVisit> visits = region_visits(master_regions(trace.defs, trace.ranks[r]), parallel);
    std::vector<std::uint32_t> team(visits.size(), 1);
    for (std::size_t k = 0; k < trace.ranks[r].others.size(); ++k) {
      const std::vector<RegionVisit> own = region_visits(trace.ranks[r].others[k], parallel);
      std::vector<bool> counted(own.size(), false);
      for (std::size_t i = 0; i < visits.size(); ++i)
        if (const RegionVisit* v = overlapping_visit(own, visits[i].region, visits[i].enter, visits[i].leave)) {
          ++team[i];
          counted[static_cast<std::size_t>(v - own.data())] = true;
        }
      for (std::size_t j = 0; j < own.size(); ++j)
        if (!counted[j])
          trace.anomalies.add(AnomalyKind::OrphanThreadRegion, [&] {
            return "rank " + std::to_string(r) + ", " + trace.defs.ranks[r].others[k].name + ": " +
                   trace.defs.regions[own[j].region].name + " at " + std::to_string(own[j].enter) + " s";
          });
    }
    for (std::size_t i = 1; i < visits.size(); ++i)
      if (team[i] != team[i - 1])
        trace.anomalies.add(AnomalyKind::TeamSizeChange, [&] {
          return "rank " + std::to_string(r) + ": " + trace.defs.regions[visits[i].region].name + " at " +
                 std::to_string(visits[i].enter) + " s has " + std::to_string(team[i]) + " threads, the one before " +
                 std::to_string(team[i - 1]);
        });
  }
}

}  // namespace wisp
