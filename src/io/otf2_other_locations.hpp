// The records of a rank's other threads and accelerator streams (hybrid traces): read, counted
// per location, their region enters and leaves and thread records kept (other_locations.hpp,
// thread_records.hpp), and checked for MPI
// calls, which wisp models on master threads only.
#pragma once

#include <otf2/otf2.h>

#include <string>

#include "otf2_definitions.hpp"
#include "otf2_errors.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/attributes.hpp"
#include "wisp/trace/metrics.hpp"
#include "wisp/trace/other_locations.hpp"
#include "wisp/trace/rma_records.hpp"
#include "wisp/trace/thread_records.hpp"

namespace wisp::io {

// Every OTF2 location id the reader needs for the ranks of `share`: their masters, other locations, metric locations.
std::vector<std::uint64_t> locations_to_read(const ArchiveDefinitions& archive, RankShare share);

// Reads the event files of every rank's other locations into ThreadLocation::records. An MPI call
// (an Enter of an MPI region or an MPI record) on one of them is refused with one line naming the
// rank, the location and the call: MPI_THREAD_MULTIPLE programs are not modelled.
struct OtherLocations {
  std::vector<OtherLocationEvents> events;                             // [rank][location]
  std::vector<std::vector<std::vector<ThreadRecord>>> thread_records;  // [rank][location]
  std::vector<std::vector<std::vector<RmaRecord>>> rma_records;        // [rank][location]
  std::vector<std::vector<LocationAttributes>> attributes;             // [rank][location]
  std::vector<OtherLocationMetrics> metrics;                           // [rank][location]
  std::uint64_t unkept_attributes = 0;                                 // attribute values not kept
  std::uint64_t unknown_team = 0;                                      // thread records naming no thread team: skipped
  std::uint64_t unkept = 0;  // other records (RMA memory copies, attributes-only records, ...): counted
};
// Returns the kept events and thread records of the other locations of `share`'s ranks.
OtherLocations read_other_locations(OTF2_Reader* reader, ArchiveDefinitions& archive, RankShare share,
                                    const std::string& where, const Otf2ErrorScope& scope);

}  // namespace wisp::io
