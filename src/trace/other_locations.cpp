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
  if (original.others.empty()) return;
  std::vector<double> before, after;
  before.reserve(original.events.size());
  after.reserve(moved.events.size());
  for (const Event& e : original.events) before.push_back(e.time);
  for (const Event& e : moved.events) after.push_back(e.time);
  moved.others = original.others;
  for (auto& location : moved.others)
    for (LocationEvent& e : location) e.time = follow_master(before, after, e.time);
}

}  // namespace wisp

namespace wisp {

namespace {

constexpr std::uint8_t kParallelRole = 5;

struct MasterVisit {
  double enter = 0, leave = 0;
  RegionId region = kNone;
};

// The master's visits of parallel regions, in time order of their enters.
std::vector<MasterVisit> parallel_visits(const Definitions& defs, const RankTrace& rt) {
  std::vector<MasterVisit> out;
  std::vector<std::size_t> open;
  for (const Event& e : rt.events) {
    if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
    const RegionId region = defs.callpaths[e.ref].region;
    if (defs.regions[region].otf2_role != kParallelRole) continue;
    if (e.kind == EventKind::Enter) {
      open.push_back(out.size());
      out.push_back({e.time, e.time, region});
    } else if (!open.empty()) {
      out[open.back()].leave = e.time;
      open.pop_back();
    }
  }
  return out;
}

// The master visit a thread's parallel-region enter at `t` belongs to: the master's first parallel
// visit that has not ended by `t`, if it is of the same region (threads may stamp their enter a
// little before the master's); nullptr if none.
const MasterVisit* team_of(const std::vector<MasterVisit>& visits, RegionId region, double t) {
  auto it = std::lower_bound(visits.begin(), visits.end(), t, [](const MasterVisit& v, double x) { return v.leave < x; });
  return it != visits.end() && it->region == region ? &*it : nullptr;
}

}  // namespace

void check_teams(Trace& trace) {
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    if (trace.ranks[r].others.empty()) continue;
    const std::vector<MasterVisit> visits = parallel_visits(trace.defs, trace.ranks[r]);
    std::vector<std::uint32_t> team(visits.size(), 1);
    for (std::size_t k = 0; k < trace.ranks[r].others.size(); ++k)
      for (const LocationEvent& e : trace.ranks[r].others[k]) {
        if (!e.enter || trace.defs.regions[e.region].otf2_role != kParallelRole) continue;
        if (const MasterVisit* v = team_of(visits, e.region, e.time)) {
          ++team[static_cast<std::size_t>(v - visits.data())];
        } else {
          trace.anomalies.add(AnomalyKind::OrphanThreadRegion, [&] {
            return "rank " + std::to_string(r) + ", " + trace.defs.ranks[r].others[k].name + ": " +
                   trace.defs.regions[e.region].name + " at " + std::to_string(e.time) + " s";
          });
        }
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
