// `--export FORMAT PATH` of `wisp simulate` and the `export:` key of scenarios: the trace written
// for another simulator (SMPI time-independent traces, GOAL schedules; replay/export.hpp), with
// what the format cannot express named in one warning.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "wisp/driver/written.hpp"
#include "wisp/replay/export.hpp"
#include "wisp/replay/replay.hpp"

namespace wisp::driver {

// From the command line's pairs (format, path, format, path, ...); throws wisp::Error on an
// unknown format.
std::vector<ExportRequest> export_requests(const std::vector<std::string>& pairs,
                                           const std::string& collectives = "actions",
                                           const std::string& time_unit = "ns");

// Throws wisp::Error before anything is written if a request cannot be written (a missing
// directory, an SMPI directory that exists unless `force`).
void check_export_paths(const std::vector<ExportRequest>& requests, bool force);

// Writes every request for `trace` as replayed on `platform` with `options` (`stats`: the
// replay's platform facts). Adds "wrote ..." lines and warnings to `out`.
void write_exports(const Trace& trace, const Platform& platform, const ReplayOptions& options,
                   const ReplayStatistics& stats, const std::vector<ExportRequest>& requests, bool force, Written& out);

}  // namespace wisp::driver
