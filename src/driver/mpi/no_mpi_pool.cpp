// The stand-in for a wisp built without MPI (no MPI library found at configure time): a plain
// run never needs MPI; one launched by mpirun/srun says in one line that MPI is missing.
#include <string>

#include "wisp/driver/mpi_pool.hpp"
#include "wisp/error.hpp"

namespace wisp {

bool built_with_mpi() { return false; }

MpiSession::MpiSession() {
  if (launched_by_mpi())
    throw Error(
        "this wisp was built without MPI: rebuild with an MPI library (see README.md, \"Beyond one machine\"), "
        "or run without mpirun/srun (--jobs N, --points, --slurm-array)");
}

MpiSession::~MpiSession() = default;

namespace {
[[noreturn]] void no_mpi(const char* what) { throw Error(std::string(what) + ": this wisp was built without MPI"); }
}  // namespace

void mpi_schedule(const MpiSession&, const std::vector<std::size_t>&, const PoolWork&) { no_mpi("mpi_schedule"); }
void mpi_release(const MpiSession&) { no_mpi("mpi_release"); }
void mpi_serve(const MpiSession&, const PoolWork&) { no_mpi("mpi_serve"); }
void mpi_pool(const MpiSession&, const std::vector<std::size_t>&, const PoolWork&) { no_mpi("mpi_pool"); }
std::unique_ptr<ProcessGroup> mpi_process_group(const MpiSession&) { return std::make_unique<SoloProcess>(); }

}  // namespace wisp
