// Synthetic MPI programs whose traces follow the analytic model of model.hpp exactly, so that
// tests know every wait state, critical path and runtime. Each generator is deterministic per
// seed; `wisp generate KIND` writes its trace as OTF2. Its README derives the
// expected figures of each one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wisp/generate/model.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::gen {

// Options every generator shares.
struct CommonOptions {
  ModelParams model;
  std::uint64_t seed = 1;
  double launch_jitter = 0;    // rank launch times drawn uniformly from [0, launch_jitter] s
  bool cycle_counter = false;  // add_cycle_counter() to the generated trace
};

// A strictly synchronous counter, as Score-P records PAPI_TOT_CYC: a sample of "cycles" (a 2 GHz
// clock since the rank's first event, UINT64, accumulated from the start) before every enter and
// leave of every master and (hybrid traces) of every other thread, as Score-P records PAPI per
// OpenMP thread. No analysis reads it; it measures what keeping counters costs.
void add_cycle_counter(Trace& trace);

// Paper 000 §IV-A: P ranks, N iterations of work() + MPI_Barrier. The imbalanced modes make
// the run `percent` % longer than the balanced one while the total work stays P·N·work:
// e = percent/100 · T_balanced / N is added to the slowest rank of every iteration.
//   balanced: every rank works `work` s per iteration;
//   static:   rank r works work + e·(2r/(P-1) - 1) in every iteration;
//   dynamic:  in iteration k one rank works work + e, the others work - e/(P-1); the overloaded
//             rank follows a seeded permutation per block of P iterations (each rank equally often);
//   mixed:    like dynamic, but rank 0 is overloaded in the first half, rank P-1 in the second.
struct ImbalanceOptions : CommonOptions {
  std::uint32_t ranks = 32;
  std::uint32_t iterations = 320;
  std::string mode = "static";  // balanced | static | dynamic | mixed
  double percent = 25;
  double work = 0.05;  // seconds per iteration when balanced
};
Trace generate_imbalance(const ImbalanceOptions& o);
// T_balanced of the model for these options (launch, MPI_Init, iterations, MPI_Finalize).
double imbalance_balanced_runtime(const ImbalanceOptions& o);

// Sweep3D-like wavefront on a px × py grid (rank = y·px + x). Each iteration sweeps from the four
// corners; per sweep and block a rank receives (MPI_Recv) from its upstream neighbour in x (E/W),
// then in y (N/S), computes sweep(), and sends (MPI_Send) downstream in x, then in y. An
// MPI_Allreduce of 8 bytes ends each iteration. Ranks in `extra_ranks` compute (1 + extra) times
// longer in sweep().
struct WavefrontOptions : CommonOptions {
  std::uint32_t px = 4, py = 4;
  std::uint32_t iterations = 10;
  std::uint32_t blocks = 2;    // pipelined k-blocks per sweep
  double work = 0.001;         // sweep() seconds per block
  std::uint64_t bytes = 4096;  // per message
  std::vector<Rank> extra_ranks;
  double extra = 0;
};
Trace generate_wavefront(const WavefrontOptions& o);

// Two partitions coupled every step (paper 000 §IV-D, ddcMD-like): ranks [0, particle_ranks) run
// particle_push() (particle_work / particle_ranks s per step), the others mesh_solve()
// (mesh_work / mesh_ranks s). Each partition does an MPI_Allreduce on its own communicator
// (made by MPI_Comm_split); then every particle rank i sends its deposit to mesh rank
// particle_ranks + i mod mesh_ranks and receives the field back. `shift` moves that fraction of
// the mesh work to the particle partition (total resource time conserved).
struct MpmdOptions : CommonOptions {
  std::uint32_t particle_ranks = 8, mesh_ranks = 8;
  std::uint32_t steps = 50;
  double particle_work = 0.08;  // core-seconds per step for the whole partition
  double mesh_work = 0.08;
  double shift = 0;
  std::uint64_t bytes = 8192;
};
Trace generate_mpmd(const MpmdOptions& o);

// Non-blocking halo exchange on a periodic 2-D or 3-D grid. Per step: compute() (work), then
// MPI_Irecv from and MPI_Isend to each neighbour and MPI_Waitall, then boundary()
// (boundary_work), then MPI_Allreduce of 8 bytes. Ranks in `overload_ranks` spend
// (1 + overload) times longer in `overload_region` (compute or boundary); with `balanced` the
// same extra work is spread evenly over all ranks instead.
struct HaloOptions : CommonOptions {
  std::vector<std::uint32_t> dims{4, 4};
  std::uint32_t steps = 100;
  double work = 0.01;
  double boundary_work = 0.001;
  std::uint64_t bytes = 16384;
  std::vector<Rank> overload_ranks;
  double overload = 0;
  std::string overload_region = "compute";
  bool balanced = false;
  bool cxx_names = false;  // name the functions like demangled C++ (commas, templates, operator())
};
Trace generate_halo(const HaloOptions& o);
// The region names halo uses for compute() and boundary() (depend on cxx_names).
std::string halo_compute_name(bool cxx_names);
std::string halo_boundary_name(bool cxx_names);

// Four phases of `iterations` each in the spirit of paper 003 §5.1, all in relax():
//   1 balanced:   relax(work) + neighbour exchange (small) + MPI_Allreduce;
//   2 imbalanced: ranks in the upper half relax (1 + imbalance) times longer;
//   3 serialised: a token travels rank 0 → P-1 (MPI_Recv, relax, MPI_Send) before the Allreduce;
//   4 transfer:   like 1 but the exchange moves big_bytes per neighbour (rendezvous, slow).
struct PhasesOptions : CommonOptions {
  std::uint32_t ranks = 16;
  std::uint32_t iterations = 40;
  double work = 0.005;
  double imbalance = 1.0;
  std::uint64_t small_bytes = 1024;
  std::uint64_t big_bytes = 32u << 20;
};
Trace generate_phases(const PhasesOptions& o);

// A hybrid MPI+OpenMP program: P ranks of T threads (the master and T-1 OpenMP threads), N
// iterations of one parallel region ("!$omp parallel @hybrid.c:10", each thread works, then the
// team meets at the implicit barrier "!$omp implicit barrier @hybrid.c:20") followed by an
// MPI_Allreduce of 8 bytes on the master. Thread t of rank r works
//   work · (1 + rank_imbalance if r = 0) · (1 + thread_imbalance if t = T-1)
// per iteration; with balanced_threads every thread of a rank works its team's mean instead. The
// master's parallel region lasts its team's longest work (its barrier waits the difference); the
// other threads' regions are written as locations of the rank's process.
struct HybridOptions : CommonOptions {
  std::uint32_t ranks = 4;
  std::uint32_t threads = 4;
  std::uint32_t iterations = 50;
  double work = 0.01;
  double thread_imbalance = 0.5;
  double rank_imbalance = 0;
  bool balanced_threads = false;
};
Trace generate_hybrid(const HybridOptions& o);
// The work of thread t of rank r in every iteration (before balancing).
double hybrid_thread_work(const HybridOptions& o, Rank r, std::uint32_t t);

}  // namespace wisp::gen
