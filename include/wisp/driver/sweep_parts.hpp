// Sweeps beyond one machine: a part directory holds the finished points of one slice of a sweep,
// one small file per point written atomically as it finishes, so that a job that dies keeps what
// it did and a rerun (--resume) computes only the missing points. Slices run over MPI ranks or as
// Slurm array tasks; merge_parts combines them into the SweepResult one run would have made.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/sweep_run.hpp"

namespace wisp {

// Points [begin, end) of a sweep.
struct PointSlice {
  std::size_t begin = 0;
  std::size_t end = 0;
};
// "A-B" (inclusive) or "A", within a sweep of `total` points; errors name `where` (the option).
PointSlice parse_point_slice(const std::string& text, std::size_t total, const std::string& where);
// `parts` slices of nearly equal size covering every point (fewer when there are fewer points).
std::vector<PointSlice> split_points(std::size_t total, std::size_t parts);
// "3, 7-9" for a sorted list of points.
std::string point_list(const std::vector<std::size_t>& points);

// manifest.json of a part directory: which sweep, how many points it has, which slice this is.
struct PartManifest {
  std::string scenario;       // the scenario file as given to `wisp run` (the reports name it so)
  std::string scenario_path;  // the same, absolute (what `wisp merge` reads)
  std::string name;           // the scenario's name
  std::string digest;         // of the scenario file's text: parts of an edited file do not mix
  std::string trace;          // the trace's source
  std::size_t total = 0;      // points in the whole sweep
  PointSlice slice;
};
PartManifest part_manifest(const Scenario& scenario, const std::string& trace_source, const PointSlice& slice);
PartManifest read_part_manifest(const std::filesystem::path& dir);

// Creates `dir` with its manifest. An existing `dir` is continued with `resume` (its manifest must
// be the same sweep and slice), replaced with `force`, else an error.
void open_part(const std::filesystem::path& dir, const PartManifest& manifest, bool resume, bool force);
// The rows `dir` holds, by point.
std::map<std::size_t, SweepRow> read_part_rows(const std::filesystem::path& dir);
void write_part_row(const std::filesystem::path& dir, std::size_t point, const SweepRow& row);

// Runs the slice's points that `dir` does not hold yet and writes each row as it finishes: over
// the MPI ranks when the session has several (rank 0 schedules and writes, the others compute,
// each worker making the identity run of a platform once), else in up to `jobs` worker processes.
// A point whose transforms or replay fail is a row with its error. Returns the number of points
// computed (0 on worker ranks). If the MPI job ends early, rank 0's last words name the
// unfinished points (interrupt::set_message).
std::size_t run_part(const Scenario& scenario, const Trace& measured, const std::filesystem::path& dir, int jobs,
                     const MpiSession& mpi);

struct MergedSweep {
  PartManifest manifest;  // of the first part, slice = the whole sweep
  SweepResult result;
};
// The rows of every part in point order; errors name parts of another sweep and missing points.
MergedSweep merge_parts(const std::vector<std::filesystem::path>& parts);
// The best point replayed once more: its scenario trace to `dir`/scenario-trace and its identity to
// `dir`/identity-trace, as run_sweep leaves them; with `cubes`, also analysed, its identity, scenario
// and difference cubes (point_cubes.hpp; warnings logged).
void write_best_traces(const Scenario& scenario, const Trace& measured, const SweepResult& sweep,
                       const std::filesystem::path& dir, bool cubes = true);

}  // namespace wisp
