// The critical path (paper 000 §II-A, §III-B): found by a backward replay that starts on the rank
// that entered MPI_Finalize last (the rank that ends last if there is no MPI_Finalize), stays on a
// rank until it reaches a wait state there, and then continues on the rank that wait state waited
// for, until MPI_Init. Scalasca's conventions: the path covers MPI_Init itself and ends where
// MPI_Finalize is entered; the time before MPI_Init is not on it.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/analysis/path_segment.hpp"
#include "wisp/analysis/sync_graph.hpp"
#include "wisp/analysis/wait_states.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct CriticalPath {
  std::vector<PathSegment> segments;  // in time order, waiting time excluded
  CallpathMatrix profile;             // seconds on the path per (call path, rank): critical_path
  double length = 0;                  // sum of the segments
  Rank end_rank = kNone;              // where the backward replay started
  std::uint64_t stopped_early = 0;    // 1 if a jump would have revisited a rank's past (clock
                                      // skew or wrong matching): the path then ends there
};

// One walk, whatever group it runs in (the group's wait states and graph): the path walks from
// process to process as it moves between ranks (a group of one holds them all); the segments and
// length are whole on every process, the profile holds this process's ranks (the others' zero).
CriticalPath find_critical_path(const Trace& trace, const WaitStates& waits, const SyncGraph& graph,
                                ProcessGroup& group);
CriticalPath find_critical_path(const Trace& trace, const WaitStates& waits,
                                const SyncGraph& graph);  // in a group of one

}  // namespace wisp
