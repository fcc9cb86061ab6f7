// The stand-in for a wisp built without MPI (no MPI library found at configure time): a plain
// run never needs MPI; one launched by mpirun/srun says in one line that MPI is missing.
#include "wisp/error.hpp"
#include "wisp/io/mpi_pool.hpp"

namespace wisp {

bool built_with_mpi() { return false; }

MpiSession::MpiSession() {
  if (launched_by_mpi())
    throw Error("this wisp was built without MPI: rebuild with an MPI library (see README.md, \"Beyond one machine\"), "
                "or run without mpirun/srun (--jobs N, --points, --slurm-array)");
}

MpiSession::~MpiSession() = default;

void mpi_pool(const MpiSession&, const std::vector<std::size_t>&, const PoolWork&) {
  throw Error("mpi_pool: this wisp was built without MPI");
}

}  // namespace wisp
