// `wisp run SCENARIO.yaml`: a scenario file's what-if question answered end to end. One point:
// its evaluation (scenario/evaluate.hpp) written as report.json/.txt/.html and the simulated
// traces; a sweep: its points in worker processes, over MPI ranks (mpirun/srun), in slices
// (--points, --resume) or as Slurm job-array scripts. The output directory is written atomically.
#pragma once

#include <filesystem>
#include <string>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct RunOptions {
  std::filesystem::path scenario;
  std::filesystem::path output;        // default: the scenario's output, else wisp-NAME
  std::filesystem::path chrome_trace;  // one point: also its three timelines as a Chrome trace
  int jobs = 1;                        // sweep points in parallel
  bool force = false;                  // replace an existing output directory
  bool detail = false;                 // report.json with the analyses' per-segment lists
  std::size_t top = 20;                // report.txt: rows per metric
  std::string points;                  // a slice of a sweep: "A-B"
  bool resume = false;                 // continue the part directory of an earlier run
  std::size_t slurm_array = 0;         // write Slurm job-array scripts of this many tasks instead
  bool no_interval = false;            // skip the gain interval's hypothesis replays
  bool no_cube = false;                // leave out identity/scenario/difference.cubex
  std::string html_window;             // "START:END" [s]: report-window.html shows it (report_views.hpp)
  double html_limit_mb = 20;           // report.html's size limit [MB] (report_views.hpp)
};

// Throws wisp::Error (bad scenario, options or input; a deadlocking replay, named by the file).
// Under mpirun the ranks other than 0 return an empty Written.
Written run(const RunOptions& options);

}  // namespace wisp::driver
