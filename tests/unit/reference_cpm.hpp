// The critical path method as the textbook has it (paper 001 §2.3), the tests' reference for the
// analysis's sparse one (cpm.hpp): earliest and latest time of every vertex by one forward and one
// backward pass in topological order, ES/EF/LS/LF and slack per activity, and the critical path by
// the tie rule critical_path_method() documents, written again from its words.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/activity_graph.hpp"
#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/near_critical.hpp"

namespace wisp::test {

// Longest path length with durations given by `weight(activity)`; fills `earliest` per vertex.
template <typename Weight>
Ticks longest_path(const ActivityGraph& g, Weight&& weight, std::vector<Ticks>& earliest,
                   Variant variant = kFirstVariant) {
  earliest.assign(g.vertex_count, 0);
  Ticks length = 0;
  g.for_each_in_order([&](std::uint32_t v) {
    const Ticks e = earliest[v];
    if (e > length) length = e;
    g.for_each_outgoing(
        v,
        [&](std::uint32_t, const Activity& act) {
          const Ticks f = e + weight(act);
          if (f > earliest[act.to]) earliest[act.to] = f;
        },
        variant);
  });
  return length;
}

struct DenseCpm {
  std::vector<Ticks> earliest;  // per vertex: longest path from a root (roots at 0)
  std::vector<Ticks> latest;    // per vertex: latest time without delaying the end (leaves at length)
  Ticks length = 0;             // d_cp
};
// Needs index_graph(g).
DenseCpm dense_cpm(const ActivityGraph& g);

struct ActivityTimes {
  Ticks es = 0, ef = 0;   // early start, early finish = ES + d
  Ticks ls = 0, lf = 0;   // late start = LF - d, late finish
  Ticks total_slack = 0;  // LS - ES
  Ticks free_slack = 0;   // ES of the immediate successors (the end if none) - EF
};
ActivityTimes activity_times(const ActivityGraph& g, const DenseCpm& cpm, std::uint32_t activity);

// The critical path wisp reports, root to leaf: a backward walk from the leaf of the lowest lane
// among those ending last, taking at each vertex a tight incoming activity: a local one first, then
// one from the lane the path is on, then the lowest lane, then the first listed.
std::vector<std::uint32_t> critical_path(const ActivityGraph& g, const DenseCpm& cpm);

// The analysis's near-critical paths of g (critical_path_method(g, critical), then the search),
// after checking that its length and critical path are `cpm`'s (wisp::Error if not).
NearCriticalPaths near_critical_paths(const ActivityGraph& g, const DenseCpm& cpm, const NearCriticalQuery& query);
// The analysis's MBM rows of g, after the same check.
std::vector<MbmRow> maximum_benefit(const ActivityGraph& g, const DenseCpm& cpm, const NearCriticalPaths& paths,
                                    unsigned threads = 1);

// MBM_all by definition: d_cp minus the longest path with every activity of `callpath` at zero.
Ticks mbm_all(const ActivityGraph& g, const DenseCpm& cpm, CallpathId callpath);

}  // namespace wisp::test
