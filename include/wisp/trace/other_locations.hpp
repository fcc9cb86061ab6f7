// The events of a rank's other threads and accelerator streams (hybrid traces) that wisp keeps:
// region enters and leaves, so that a simulated trace still shows every thread and stream. Their
// times follow the master's: when the master's events move (a transform, a replay), every other
// event moves with the master's timeline, piecewise linearly between the master's events.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

struct RankTrace;
struct Trace;

struct LocationEvent {
  bool operator==(const LocationEvent&) const = default;
  double time = 0;
  RegionId region = kNone;
  bool enter = true;  // false: leave
};

// Per other location of the rank (Definitions::ranks[r].others, same order): its events in time order.
using OtherLocationEvents = std::vector<std::vector<LocationEvent>>;

// The time `t` of the master's old timeline (`before`, event times) on its new one (`after`, the
// same events at new times): linear between the two master events around `t`, shifted like the
// first (last) master event before (after) them. `after` must not decrease where `before` grows.
double follow_master(const std::vector<double>& before, const std::vector<double>& after, double t);

// Moves the other-location events, thread records, RMA records and counter samples of `moved` (copies of
// `original`'s, taken along with it, while its master events got new times) along the master's
// new timeline.
void move_other_locations(const RankTrace& original, RankTrace& moved);

// A visit of a region: from its enter to its leave.
struct RegionVisit {
  double enter = 0, leave = 0;
  RegionId region = kNone;
};
// The visits of the regions `wanted` selects, in the order of their enters. Of one kind (parallel
// regions, barriers) visits do not overlap, so the list is ordered by leave too.
std::vector<RegionVisit> region_visits(const std::vector<LocationEvent>& events,
                                       const std::function<bool(RegionId)>& wanted);
// Among such visits, the first of `region` that overlaps [enter, leave] (widened by `slack` on both
// sides): another thread's part of a master's visit, which it may enter a little before the master.
const RegionVisit* overlapping_visit(const std::vector<RegionVisit>& visits, RegionId region, double enter,
                                     double leave, double slack = 0);

// Counts the anomalies of the other threads: a thread's parallel region (OTF2 role PARALLEL)
// entered while its master is not in that region (a thread record without its fork), and a
// parallel region whose team (the master and the threads that visit it meanwhile) has another size
// than the rank's previous team.
void check_teams(Trace& trace);

}  // namespace wisp
