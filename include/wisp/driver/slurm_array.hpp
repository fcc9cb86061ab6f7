// The Slurm job-array scripts of `wisp run --slurm-array N`: `dir`/sweep-array.sbatch (a job array
// of `tasks` slices, each writing dir/parts/K with `wisp run --points`), `dir`/sweep-merge.sbatch
// (`wisp merge` of the parts into dir/result) and `dir`/submit.sh (the array, then the merge).
#pragma once

#include <filesystem>
#include <string>

#include "wisp/io/atomic_output.hpp"

namespace wisp::driver {

struct SlurmArray {
  std::filesystem::path wisp;      // this binary, absolute
  std::filesystem::path scenario;  // absolute
  std::filesystem::path dir;       // the target directory, absolute
  std::string name;
  std::size_t points = 0;
  std::size_t tasks = 1;
};

// The three scripts into `out`, committed.
void write_slurm_scripts(const SlurmArray& array, AtomicDirectory& out);

}  // namespace wisp::driver
