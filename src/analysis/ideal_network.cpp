// Ideal-network clock replay. See ideal_network.hpp.
#include "wisp/analysis/ideal_network.hpp"

#include "wisp/analysis/cpm.hpp"

namespace wisp {

IdealNetworkReplay ideal_network_replay(const Trace& trace, std::uint64_t eager_limit) {
  IdealNetworkReplay out;
  out.pag = build_pag(trace, PagOptions{RendezvousRule::EagerLimit, eager_limit});
  const Ticks length = longest_path(
      out.pag.graph,
      [](const Activity& a) { return a.kind == ActivityKind::Computation ? a.duration : Ticks{0}; }, out.clock);
  out.runtime = out.pag.seconds(length);
  return out;
}

}  // namespace wisp
