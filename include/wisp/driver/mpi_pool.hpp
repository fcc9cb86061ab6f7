// Work items spread over the ranks of an MPI job (mpirun / srun): rank 0 hands out items one at a
// time as workers ask (dynamic scheduling) and receives their answers; the MPI code lives in
// src/driver/mpi/ only, and a wisp built without MPI links a stand-in that says so in one line.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "wisp/group/process_group.hpp"

namespace wisp {

// The launcher's environment says this process is one rank of an MPI job: OMPI_COMM_WORLD_SIZE
// (Open MPI), PMI_SIZE / PMIX_RANK (MPICH, srun --mpi=pmi2/pmix), or SLURM_STEP_ID with SLURM_NTASKS
// (srun; a plain batch script has no step id). WISP_NO_MPI=1 turns the detection off.
bool launched_by_mpi();
// Whether this wisp was built against an MPI library.
bool built_with_mpi();

// MPI_Init in the constructor and MPI_Finalize in the destructor, only when launched_by_mpi();
// otherwise rank 0 of 1 and MPI is never touched. Throws wisp::Error when launched by MPI but
// built without it. A session left by an exception in a job of several ranks skips MPI_Finalize,
// so that the launcher ends the job instead of the ranks waiting for each other.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  bool active() const { return active_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

// The job's ranks as the processes of an analysis spread over them (process_group.hpp): exchanges
// are MPI_Alltoall of the sizes and point-to-point messages of at most 1 GiB each. The session must
// outlive it.
std::unique_ptr<ProcessGroup> mpi_process_group(const MpiSession& session);

// What the pool does with an item. Workers call `compute` with what rank 0 attached to the item (it
// must not throw: it answers with text); rank 0 calls `ready` to pick the next item it can hand out
// (one whose inputs are answered; empty: every item), `attach` for what goes with it to that rank
// (empty: nothing), `finished` with each answer as it arrives and `unfinished` whenever the set of
// handed-out, unanswered items changes. When an MPI call fails (a rank is gone and the launcher has
// not ended the job yet) rank 0 calls `lost` with the unanswered items and why, which throws.
struct PoolWork {
  std::function<std::string(std::size_t item, const std::string& attachment)> compute;
  std::function<bool(std::size_t item)> ready;
  std::function<std::string(std::size_t item, int rank)> attach;
  std::function<void(std::size_t item, int rank, const std::string& answer)> finished;
  std::function<void(const std::vector<std::size_t>& running)> unfinished;
  std::function<void(const std::vector<std::size_t>& running, const std::string& why)> lost;
};

// Rank 0: runs one batch of `items` over ranks 1..size-1 (dynamic scheduling, in the order given
// among the ready ones) and returns when all are answered; the workers stay for the next batch.
void mpi_schedule(const MpiSession& session, const std::vector<std::size_t>& items, const PoolWork& work);
// Rank 0, after its last batch: the workers' mpi_serve returns.
void mpi_release(const MpiSession& session);
// Ranks 1..: computes what rank 0 hands out, batch after batch, until it releases them.
void mpi_serve(const MpiSession& session, const PoolWork& work);

// One batch and the release: rank 0 schedules `items`, the others serve. Needs at least 2 ranks.
void mpi_pool(const MpiSession& session, const std::vector<std::size_t>& items, const PoolWork& work);

}  // namespace wisp
