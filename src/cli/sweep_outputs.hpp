// What `wisp run` and `wisp merge` write for a sweep (one place, so that a merged sweep is the
// same files as one run), and the Slurm job-array scripts of `wisp run --slurm-array N`.
#pragma once

#include <filesystem>
#include <string>

#include "wisp/io/atomic_output.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp::cli {

// sweep.csv, report.html, report.json, report.txt into `out`, committed; prints report.txt (or
// report.json with `print_json`).
void write_sweep_outputs(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep,
                         AtomicDirectory& out, bool print_json);
// One line naming the failed points, if any (after the outputs are written).
void throw_if_points_failed(const SweepResult& sweep, const std::filesystem::path& dir);

// `dir`/sweep-array.sbatch (a job array of `tasks` slices, each writing dir/parts/K with `wisp run
// --points`), `dir`/sweep-merge.sbatch (`wisp merge` of the parts into dir/result) and
// `dir`/submit.sh (queues the array, then the merge with --dependency=afterok), in `out`.
struct SlurmArray {
  std::filesystem::path wisp;      // this binary, absolute
  std::filesystem::path scenario;  // absolute
  std::filesystem::path dir;       // the target directory, absolute
  std::string name;
  std::size_t points = 0;
  std::size_t tasks = 1;
};
void write_slurm_scripts(const SlurmArray& array, AtomicDirectory& out);

}  // namespace wisp::cli
