// Where the ranks run: which host (node) of the platform each rank is placed on. Cyclic deals the
// ranks out one per host in turn (mpirun --map-by node); block fills each host's cores with
// consecutive ranks before the next (--map-by core), as a batch system packs nodes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

enum class Placement : std::uint8_t { Cyclic, Block };
std::string_view to_string(Placement p);
Placement placement_from_name(std::string_view name);  // throws wisp::Error on an unknown name

// The host index of every rank, over hosts with `cores[h]` cores each (in the platform's order).
// Cyclic: rank r on host r mod H. Block: hosts filled in order, cores[h] consecutive ranks each; ranks
// beyond the cores of all hosts start again at the first host (they share its cores).
std::vector<std::size_t> place_ranks(Placement placement, const std::vector<std::uint32_t>& cores, Rank ranks);

}  // namespace wisp
