// Rank placement, cyclic or block. See placement.hpp.
#include "wisp/replay/placement.hpp"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "wisp/error.hpp"
#include "wisp/replay/replay.hpp"

namespace wisp {

std::string_view to_string(Placement p) {
  return p == Placement::Block ? "block" : p == Placement::Cyclic ? "cyclic" : "traced";
}

Placement placement_from_name(std::string_view name) {
  if (name == "block") return Placement::Block;
  if (name == "cyclic") return Placement::Cyclic;
  if (name == "traced") return Placement::Traced;
  throw Error("unknown placement '" + std::string(name) + "' (known: block, cyclic, traced, or {hostfile: FILE})");
}

std::vector<std::size_t> place_ranks(Placement placement, const std::vector<std::uint32_t>& cores, Rank ranks) {
  std::vector<std::size_t> host(ranks, 0);
  if (cores.empty()) return host;
  if (placement != Placement::Block) {
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

std::vector<std::size_t> traced_placement(const std::vector<std::string>& nodes,
                                          const std::vector<std::uint32_t>& cores) {
  const Rank ranks = static_cast<Rank>(nodes.size());
  const bool named = std::all_of(nodes.begin(), nodes.end(), [](const std::string& n) { return !n.empty(); });
  const bool machine = std::any_of(cores.begin(), cores.end(), [](std::uint32_t c) { return c > 1; });
  if (!named || !machine || cores.empty()) return place_ranks(Placement::Cyclic, cores, ranks);
  std::unordered_map<std::string, std::size_t> index;  // node name -> its order of first appearance
  std::vector<std::size_t> host(ranks, 0);
  for (Rank r = 0; r < ranks; ++r) host[r] = index.emplace(nodes[r], index.size()).first->second % cores.size();
  return host;
}

std::vector<std::size_t> planned_hosts(const Trace& trace, const Platform& p, const ReplayOptions& options) {
  if (!p.file.empty() || p.topology != Topology::Crossbar) return {};
  const std::size_t hosts = p.hosts ? p.hosts : trace.rank_count();
  std::vector<std::size_t> out(trace.rank_count(), 0);
  if (!options.hosts.empty()) {  // a rank mapping: rank r on its (r mod n)-th name
    for (Rank r = 0; r < trace.rank_count(); ++r) {
      const std::string& name = options.hosts[r % options.hosts.size()];
      std::size_t h = 0;
      const char* end = name.data() + name.size();
      if (name.rfind("node-", 0) != 0 || name.size() == 5 || std::from_chars(name.data() + 5, end, h).ptr != end ||
          h >= hosts)
        return {};
      out[r] = h;
    }
    return out;
  }
  return place_trace(trace, options.placement, std::vector<std::uint32_t>(hosts, p.cores));
}

std::vector<std::size_t> place_trace(const Trace& trace, Placement placement, const std::vector<std::uint32_t>& cores) {
  if (placement != Placement::Traced) return place_ranks(placement, cores, trace.rank_count());
  std::vector<std::string> nodes;
  for (const Location& l : trace.defs.ranks) nodes.push_back(l.node);
  return traced_placement(nodes, cores);
}

}  // namespace wisp
