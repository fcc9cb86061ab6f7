// Identifier types of the trace model.
// Every definition (rank, region, call path, communicator) is referred to by a dense 32-bit index
// into its table in `Definitions`; kNone marks "no such thing" (e.g. the root call path's parent).
#pragma once

#include <cstdint>
#include <limits>

namespace wisp {

using Rank = std::uint32_t;        // global MPI rank = index into Trace::ranks
using RegionId = std::uint32_t;    // index into Definitions::regions
using CallpathId = std::uint32_t;  // index into Definitions::callpaths
using CommId = std::uint32_t;      // index into Definitions::comms
using EventIndex = std::uint32_t;  // index into RankTrace::events

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

}  // namespace wisp
