// Per-thread time in every call path of hybrid traces: the exclusive time of each other thread
// and accelerator stream of a rank per call path. A thread's call path is the master's call path
// around the region it runs in (the parallel region's parent, or the master's current call path)
// followed by the thread's own nesting, so that the threads' rows line up with the master's.
#pragma once

#include <string>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

struct ThreadTime {
  Rank rank = kNone;
  std::uint32_t location = 0;  // index into Definitions::ranks[rank].others
  std::string callpath;        // "main/jacobi/!$omp parallel @jacobi_cuda.c:171/!$omp for @jacobi_cuda.c:175"
  double seconds = 0;          // exclusive
};

// Rows ordered by rank, location, call path; empty for single-threaded traces.
std::vector<ThreadTime> thread_profile(const Trace& trace);
// Spread over processes (Trace::share): every process's rows, in rank order, on every process.
std::vector<ThreadTime> thread_profile(const Trace& trace, ProcessGroup& group);

}  // namespace wisp
