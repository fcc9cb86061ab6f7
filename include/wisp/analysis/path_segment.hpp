// One stretch of a path through the run: a rank, the call path it executes, and when. The critical
// path of the backward replay (critical_path.hpp) and the paths of the program activity graph
// (pag_path.hpp) are both lists of these, so that they can be compared segment by segment.
#pragma once

#include "wisp/trace/ids.hpp"

namespace wisp {

struct PathSegment {
  bool operator==(const PathSegment&) const = default;
  Rank rank = kNone;
  CallpathId callpath = kNone;  // kNone: outside every region (the program root); PAG paths also
                                // use kLaunchCallpath (activity_graph.hpp) before a rank started
  double start = 0;             // seconds since the trace's time 0
  double end = 0;
};

}  // namespace wisp
