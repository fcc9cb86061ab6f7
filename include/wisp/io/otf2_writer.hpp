// Writes a Trace as an OTF2 archive in Score-P's record layout (location groups "MPI Rank N",
// "Master thread" locations, MPI regions with their roles, MPI_COMM_WORLD and sub-communicators
// as groups + comms), so that Vampir, Scalasca, otf2-print and wisp itself read it. The archive
// appears under `dir` completely or not at all.
#pragma once

#include <filesystem>
#include <string>

#include "wisp/trace/trace.hpp"

namespace wisp {

struct WriteOptions {
  bool force = false;            // replace an existing non-empty `dir`
  std::string creator = "wisp";  // OTF2 anchor "Creator"
  std::string description;       // OTF2 anchor "Description"
};

// Writes dir/traces.otf2, dir/traces.def and dir/traces/. Throws wisp::Error on failure.
void write_otf2(const Trace& trace, const std::filesystem::path& dir, const WriteOptions& options = {});

// Writes the archive into an existing directory (no staging); used by write_otf2 and by callers
// that assemble a larger atomic output directory themselves.
void write_otf2_into(const Trace& trace, const std::filesystem::path& dir, const WriteOptions& options);

// The records of the measured trace a written one lacks (those the reader counted but did not
// keep: Trace::skipped_records), "4 Rma*, 30140 records with attributes"; empty if none.
std::string records_not_written(const Trace& trace);

}  // namespace wisp
