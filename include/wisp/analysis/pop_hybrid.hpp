// POP's hybrid MPI+OpenMP efficiency factors (the multiplicative model of the POP CoE's hybrid
// metrics) for traces whose ranks have OpenMP threads: useful time is time outside MPI and outside
// OpenMP barriers, on every thread (a thread outside its parallel regions is idle):
//   hybrid parallel efficiency  HPE     = Σ_threads useful / (threads × runtime)
//   MPI parallel efficiency     MPI PE  = mean over ranks of the master's time outside MPI / runtime
//                                       = MPI load balance (mean / max) × MPI communication (max / runtime)
//   OpenMP parallel efficiency  OMP PE  = HPE / MPI PE
#pragma once

#include <optional>

#include "wisp/group/process_group.hpp"
#include "wisp/trace/trace.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

struct HybridPopFactors {
  double hybrid_parallel_efficiency = 0;
  double mpi_parallel_efficiency = 0;
  double mpi_load_balance = 0;
  double mpi_communication_efficiency = 0;
  double openmp_parallel_efficiency = 0;
  std::uint64_t threads = 0;  // all threads, masters included
  double runtime = 0;         // the trace's span [s]
};

// No value for single-threaded traces (or a trace without duration).
std::optional<HybridPopFactors> hybrid_pop_factors(const Trace& trace);
// Collective over `group`, for a trace read spread over it (`whole`: summary_over() of it): the
// same factors, on every process.
std::optional<HybridPopFactors> hybrid_pop_factors(const Trace& trace, const TraceSummary& whole, ProcessGroup& group);

}  // namespace wisp
