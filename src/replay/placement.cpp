// Rank placement, cyclic or block. See placement.hpp.
#include "wisp/replay/placement.hpp"

#include <algorithm>

#include "wisp/error.hpp"

namespace wisp {

std::string_view to_string(Placement p) { return p == Placement::Block ? "block" : "cyclic"; }

Placement placement_from_name(std::string_view name) {
  if (name == "block") return Placement::Block;
  if (name == "cyclic") return Placement::Cyclic;
  throw Error("unknown placement '" + std::string(name) + "' (known: block, cyclic, or {hostfile: FILE})");
}

std::vector<std::size_t> place_ranks(Placement placement, const std::vector<std::uint32_t>& cores, Rank ranks) {
  std::vector<std::size_t> host(ranks, 0);
  if (cores.empty()) return host;
  if (placement == Placement::Cyclic) {
    for (Rank r = 0; r < ranks; ++r) host[r] = r % cores.size();
    return host;
  }
  std::size_t h = 0;
  std::uint32_t used = 0;
  for (Rank r = 0; r < ranks; ++r) {
    while (used >= std::max<std::uint32_t>(cores[h], 1)) h = (h + 1) % cores.size(), used = 0;
    host[r] = h;
    ++used;
  }
  return host;
}

}  // namespace wisp
