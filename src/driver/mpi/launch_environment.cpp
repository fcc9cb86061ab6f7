// Whether the process was started by an MPI launcher, read from the environment only, so that a
// plain `wisp` never loads or initialises an MPI runtime. Built with and without MPI.
#include <cstdlib>
#include <string>

#include "wisp/driver/mpi_pool.hpp"

namespace wisp {

bool launched_by_mpi() {
  const auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
  };
  if (const char* off = std::getenv("WISP_NO_MPI"); off != nullptr && std::string(off) == "1") return false;
  if (set("OMPI_COMM_WORLD_SIZE") || set("PMI_SIZE") || set("PMIX_RANK")) return true;
  return set("SLURM_STEP_ID") && set("SLURM_NTASKS");
}

}  // namespace wisp
