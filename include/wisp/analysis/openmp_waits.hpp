// OpenMP wait states of hybrid traces, by Scalasca's definitions (OMP.pattern), on the master's
// call paths: the waiting time in front of implicit and explicit OpenMP barriers (each thread of
// the team waits from its own barrier enter to the last one's), and the idle threads: the threads
// a process holds beside its master, idle while the master runs outside parallel regions.
#pragma once

#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/analysis/profile.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct OpenMpWaits {
  CallpathMatrix ibarrier;  // omp_ibarrier_wait, summed over the team, on the master's barrier call path
  CallpathMatrix ebarrier;  // omp_ebarrier_wait
  CallpathMatrix idle;      // omp_idle_threads: (threads − 1) × exclusive time outside parallel regions
};

// Empty matrices (no values) when no rank has other threads.
OpenMpWaits find_openmp_waits(const Trace& trace, const Profile& profile);

}  // namespace wisp
