// The records of a rank's other threads and accelerator streams (hybrid traces): read, counted
// per location, their region enters and leaves kept (other_locations.hpp), and checked for MPI
// calls, which wisp models on master threads only.
#pragma once

#include <otf2/otf2.h>

#include <string>

#include "otf2_definitions.hpp"
#include "otf2_errors.hpp"
#include "wisp/trace/other_locations.hpp"

namespace wisp::io {

// Every OTF2 location id the reader needs: the ranks' masters, then their other locations.
std::vector<std::uint64_t> locations_to_read(const ArchiveDefinitions& archive);

// Reads the event files of every rank's other locations into ThreadLocation::records. An MPI call
// (an Enter of an MPI region or an MPI record) on one of them is refused with one line naming the
// rank, the location and the call: MPI_THREAD_MULTIPLE programs are not modelled.
// Returns, per rank, the kept events of each of its other locations.
std::vector<OtherLocationEvents> read_other_locations(OTF2_Reader* reader, ArchiveDefinitions& archive,
                                                      const std::string& where, const Otf2ErrorScope& scope);

}  // namespace wisp::io
