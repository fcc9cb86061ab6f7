// Reads an OTF2 archive (Score-P layout) into a Trace with OTF2's local readers (faster than the
// global reader: tests/perf/README.md), the ranks' event files on several threads. Records wisp does not model are
// skipped and counted in Trace::skipped_records; anomalies are counted in Trace::anomalies; anything that prevents a
// correct model (missing/corrupt files, threads, no MPI) throws wisp::Error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>

#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct ReadOptions {
  // Called after each rank is read: (ranks done, ranks total); from the reading threads, one call
  // at a time, ranks done counting up.
  std::function<void(std::size_t, std::size_t)> progress;
  // Threads that read the ranks' event files (0: one per core; 1: one rank after another). The
  // trace is the same whatever the number.
  unsigned threads = 0;
  // Spread over these processes (every one calls read_otf2 with the same path): this process reads
  // the definitions and only its share of the ranks' event files (share_of by the events the
  // definitions declare; Trace::share), the tables derived across ranks are whole on every one.
  ProcessGroup* group = nullptr;
};

// `path` is the anchor file (traces.otf2) or the directory that holds exactly one anchor file.
Trace read_otf2(const std::filesystem::path& path, const ReadOptions& options = {});

// The anchor file `path` designates; throws wisp::Error if there is none.
std::filesystem::path resolve_anchor(const std::filesystem::path& path);

}  // namespace wisp
