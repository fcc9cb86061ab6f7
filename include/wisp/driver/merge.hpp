// `wisp merge PART... -o DIR`: the slices of a sweep (`wisp run --points`, Slurm array tasks)
// combined into the outputs one `wisp run` of the sweep writes.
#pragma once

#include <filesystem>
#include <vector>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct MergeOptions {
  std::vector<std::filesystem::path> parts;
  std::filesystem::path output;
  bool force = false;      // replace an existing output directory
  bool no_traces = false;  // skip replaying the best point for its scenario and identity traces
};

// Throws wisp::Error: parts of different sweeps, a scenario file edited since, missing points.
Written merge(const MergeOptions& options);

}  // namespace wisp::driver
