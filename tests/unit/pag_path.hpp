// The tests' view of a path of the program activity graph in trace terms: ordered segments (rank, call path, start,
// end) and the time per (call path, rank). This is what the longest PAG path is compared with when
// it is checked against the critical path of the backward-replay analysis (the wait-path analysis).
#pragma once

#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "reference_cpm.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/analysis/path_segment.hpp"

namespace wisp::test {

// Segments of a path given as activity ids: each activity covers [time(to) - duration, time(to)]
// on the rank of its target; zero-length activities are dropped and neighbours on the same rank and
// call path merged.
std::vector<PathSegment> path_segments(const Pag& pag, std::span<const std::uint32_t> activities);

// The part of the segments within [start, end] (segments cut at the borders).
std::vector<PathSegment> clip_segments(const std::vector<PathSegment>& segments, double start, double end);

// Scalasca's critical path runs from the enter of MPI_Init to the enter of MPI_Finalize: the
// segments clipped to the first MPI_Init segment's start and the last MPI_Finalize segment's start
// (unchanged at that side if the path has none).
std::vector<PathSegment> init_to_finalize(const Trace& trace, const std::vector<PathSegment>& segments);

// Seconds per (call path, rank) on the segments.
std::map<std::pair<CallpathId, Rank>, double> path_profile(const std::vector<PathSegment>& segments);

struct PagCriticalPath {
  double length = 0;  // seconds
  std::vector<PathSegment> segments;
};
// The critical path of the PAG (critical_path() of reference_cpm.hpp) as segments.
PagCriticalPath pag_critical_path(const Pag& pag, const DenseCpm& cpm);

// Empty if `a` and `b` describe the same path: after merging neighbours with equal rank and call
// path and dropping segments shorter than `tolerance`, the same segments with times within
// `tolerance`. Otherwise the first difference, in words.
std::string critical_path_difference(const std::vector<PathSegment>& a, const std::vector<PathSegment>& b,
                                     double tolerance);

}  // namespace wisp::test
