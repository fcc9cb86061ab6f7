// Scenario points over the ranks of an MPI job (mpirun/srun): rank 0 hands out the points, each
// distinct identity run (identity_key) is replayed once for the whole job by one worker and sent
// to every other worker with its first point of that identity (identity_share.hpp). Sweeps and
// `wisp suggest` run their points this way; mpi_pool.hpp moves the messages.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/sweep_run.hpp"

namespace wisp {

struct MpiPoints {
  std::vector<std::size_t> items;  // rank 0: the points of this batch, by number
  // Rank 0: point `item`, and the text a worker makes it from ("": the worker knows it by number).
  std::function<const Scenario&(std::size_t item)> point;
  std::function<std::string(std::size_t item)> text;
  const IdentityRuns* identities = nullptr;  // rank 0: identity runs it made already (sent, not made again)
  // Workers: point `item` from rank 0's text.
  std::function<Scenario(std::size_t item, const std::string& text)> make;
  // Rank 0: each row as it arrives; the points out on the workers whenever they change (an identity
  // run counts as the point it is made for); the job lost a rank while `running` were out (throws).
  std::function<void(std::size_t item, const SweepRow& row)> on_row;
  std::function<void(const std::vector<std::size_t>& running)> unfinished;
  std::function<void(const std::vector<std::size_t>& running, const std::string& why)> lost;
};

// Rank 0: runs one batch over ranks 1..size-1 and returns when every row has arrived (a point whose
// identity run fails is a row with that error). The workers stay for the next batch until
// mpi_release.
void schedule_points(const MpiSession& session, const MpiPoints& work);
// Ranks 1..: runs the points rank 0 hands out, batch after batch, until released; `work.make`
// only is used. A failure of a point is its row's error.
void serve_points(const MpiSession& session, const Trace& measured, const MpiPoints& work);

}  // namespace wisp
