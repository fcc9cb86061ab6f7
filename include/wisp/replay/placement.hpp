// Where the ranks run: which host (node) of the platform each rank is placed on. Traced keeps the
// trace's own placement (ranks of one system-tree node share a host); cyclic deals the ranks out
// one per host in turn (mpirun --map-by node); block fills each host's cores with consecutive ranks
// before the next (--map-by core), as a batch system packs nodes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

enum class Placement : std::uint8_t { Traced, Cyclic, Block };
std::string_view to_string(Placement p);
Placement placement_from_name(std::string_view name);  // throws wisp::Error on an unknown name

// The host index of every rank, over hosts with `cores[h]` cores each (in the platform's order).
// Cyclic: rank r on host r mod H. Block: hosts filled in order, cores[h] consecutive ranks each; ranks
// beyond the cores of all hosts start again at the first host (they share its cores).
std::vector<std::size_t> place_ranks(Placement placement, const std::vector<std::uint32_t>& cores, Rank ranks);

// The trace's placement: rank r's node name `nodes[r]`, the k-th distinct name (in rank order) on
// host k mod `hosts`. Cyclic where the trace names no node, and on hosts of one core each (a
// network per rank, as `wisp calibrate` writes: ranks that shared a node were measured there).
std::vector<std::size_t> traced_placement(const std::vector<std::string>& nodes,
                                          const std::vector<std::uint32_t>& cores);

// Where `placement` puts the trace's ranks over hosts of `cores[h]` cores: traced_placement from
// the ranks' node names, else place_ranks.
std::vector<std::size_t> place_trace(const Trace& trace, Placement placement, const std::vector<std::uint32_t>& cores);

// Whether every message the call [first, last] of `rank` sends, receives or completes (a
// collective: every member; with `all_ranks`, every rank: MPI_Finalize's barrier) has its other side
// on the rank's host; `host_of_rank` names each rank's host (an index, a pointer). A call without
// messages does not.
template <typename Host>
bool stays_on_host(const Trace& trace, Rank rank, EventIndex first, EventIndex last, bool all_ranks,
                   const std::vector<Host>& host_of_rank) {
  const Host& host = host_of_rank[rank];
  const auto here = [&](Rank other) { return other < host_of_rank.size() && host_of_rank[other] == host; };
  if (all_ranks) return std::all_of(host_of_rank.begin(), host_of_rank.end(), [&](const Host& h) { return h == host; });
  const RankTrace& rt = trace.ranks[rank];
  bool any = false;
  for (EventIndex k = first; k <= last; ++k) {
    const Event& e = rt.events[k];
    switch (e.kind) {
      case EventKind::MpiSend:
      case EventKind::MpiIsend:
      case EventKind::MpiRecv:
      case EventKind::MpiIrecv:
      case EventKind::MpiIsendComplete:
      case EventKind::MpiIrecvRequest:  // its record's peer is the completing receive's
        if (!here(rt.p2p[e.p2p()].peer)) return false;
        any = true;
        break;
      case EventKind::MpiCollectiveEnd: {
        const CommId comm = rt.collectives[e.collective()].comm;
        if (comm >= trace.defs.comms.size()) return false;
        for (Rank m : trace.defs.comms[comm].members)
          if (!here(m)) return false;
        any = true;
        break;
      }
      default:
        break;
    }
  }
  return any;
}

}  // namespace wisp
