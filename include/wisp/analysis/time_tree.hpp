// Scalasca's time tree: the remap spec (scout.spec) that CubeLib's cube_remap2 applies to scout's
// report splits each call path's time by what its region is (MPI management, synchronisation,
// communication, file I/O; OpenMP synchronisation; measurement overhead). The spec's region
// classes are data here; `execution`, `overhead` and `comp` follow from them, and from `comp`
// cube_remap2's computational load imbalance heuristic (remap2_calls.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/metric_table.hpp"
#include "wisp/analysis/profile.hpp"
#include "wisp/trace/definitions.hpp"

namespace wisp {

// Per call-path slot (callpath_matrix.hpp): bit i set if its region is of the spec's i-th class.
struct TimeClasses {
  std::vector<std::uint32_t> of_slot;
};

TimeClasses classify_callpaths(const Definitions& defs);

// Adds the time tree's metrics that are not sums of their children (those: add_sums()), from the
// profile's time less the idle threads' time (`idle`: hybrid traces; nullptr or empty if none).
void add_time_tree(MetricTable& table, const Profile& profile, const CallpathMatrix* idle, const TimeClasses& classes);

// CubeLib's load imbalance heuristic (Imbalance.pattern) of an MPI trace: per call path each
// rank's computation time against the mean over ranks, above or below it; where only some ranks
// visit the call path, the mean is what the others bypass (and, visited by one, its singularity).
void add_imbalance_heuristic(MetricTable& table, const CallpathMatrix& comp, const CallpathMatrix& visits);

// Adds every sum of the catalogue (MetricInfo::sum) from its children's records, deepest first.
void add_sums(MetricTable& table, std::uint32_t slots, std::uint32_t ranks);

}  // namespace wisp
