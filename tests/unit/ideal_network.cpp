// Ideal-network clock replay. See ideal_network.hpp.
#include "ideal_network.hpp"

#include "reference_cpm.hpp"

namespace wisp::test {

Ticks ideal_network_clock(const Pag& pag, std::vector<Ticks>& clock) {
  return longest_path(
      pag.graph, [](const Activity& a) { return a.kind == ActivityKind::Computation ? a.duration : Ticks{0}; }, clock,
      pag.ideal_variant);
}

IdealNetworkReplay ideal_network_replay(const Trace& trace, std::uint64_t eager_limit) {
  IdealNetworkReplay out;
  out.pag = build_pag(trace, eager_limit_options(eager_limit));
  out.runtime = out.pag.seconds(ideal_network_clock(out.pag, out.clock));
  return out;
}

}  // namespace wisp::test
