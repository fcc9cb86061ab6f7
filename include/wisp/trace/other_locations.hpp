// The events of a rank's other threads and accelerator streams (hybrid traces) that wisp keeps:
// region enters and leaves, so that a simulated trace still shows every thread and stream. Their
// times follow the master's: when the master's events move (a transform, a replay), every other
// event moves with the master's timeline, piecewise linearly between the master's events.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

struct RankTrace;
struct Trace;

struct LocationEvent {
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

// Moves every other-location event of `moved` (a copy of `original` whose master events have new
// times) along the master's new timeline.
void move_other_locations(const RankTrace& original, RankTrace& moved);

// Counts the anomalies of the other threads: a thread's parallel region (OTF2 role PARALLEL)
// entered while its master is not in that region (a thread record without its fork), and a
// parallel region whose team (the master and the threads that visit it meanwhile) has another size
// than the rank's previous team.
void check_teams(Trace& trace);

}  // namespace wisp
