// Global definitions of an OTF2 archive turned into wisp Definitions, plus the maps from OTF2
// references to wisp ids that the event callbacks need. A rank is its master thread; the other
// threads and accelerator streams of its process are listed with it. Rejects archives without an
// MPI communicator.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "otf2_errors.hpp"
#include "wisp/trace/definitions.hpp"

namespace wisp::io {

struct ArchiveDefinitions {
  Definitions defs;
  std::vector<std::uint64_t> rank_location;    // OTF2 location id of each rank
  std::vector<std::uint64_t> declared_events;  // per rank, from its Location definition
  std::vector<RegionId> region;                // OTF2 region ref -> RegionId
  std::vector<CommId> comm;                    // OTF2 comm ref -> CommId (kNone: not MPI)
  std::vector<std::uint32_t> team;             // OTF2 comm ref -> Definitions::thread_teams (kNone: none)
  std::vector<std::uint32_t> metric_class;     // OTF2 metric ref -> Definitions::metric_classes (kNone: none)
  std::vector<std::uint32_t> rma_window;       // OTF2 RmaWin ref -> Definitions::rma_windows (kNone: none)
  std::vector<std::uint32_t> attribute;        // OTF2 attribute ref -> Definitions::attributes (kNone: none)
  std::vector<std::string> strings;            // OTF2 string ref -> text
  std::map<std::string, std::uint64_t> skipped;
  std::vector<std::string> stray_locations;  // threads and streams of processes without an MPI rank
};

// Reads and converts the global definitions; `where` names the archive in error messages.
ArchiveDefinitions read_global_definitions(OTF2_Reader* reader, const std::string& where, const Otf2ErrorScope& scope);

}  // namespace wisp::io
