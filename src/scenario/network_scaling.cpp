// Residuals that scale with the network. See network_scaling.hpp.
#include "wisp/scenario/network_scaling.hpp"

#include <algorithm>
#include <vector>

namespace wisp {

namespace {

// Routes between a crossbar's hosts: the mean up plus down link latency, the lower mean bandwidth.
NetworkNumbers crossbar_numbers(const std::vector<HostLink>& links) {
  double latency = 0, up = 0, down = 0;
  for (const HostLink& l : links)
    latency += l.up_latency + l.down_latency, up += l.up_bandwidth, down += l.down_bandwidth;
  const double hosts = static_cast<double>(links.size());
  return NetworkNumbers{latency / hosts, std::min(up, down) / hosts};
}

}  // namespace

std::optional<NetworkNumbers> network_numbers(const Platform& p) {
  NetworkNumbers n{p.latency, p.bandwidth};
  if (!p.file.empty()) {
    const std::optional<std::vector<HostLink>> links = crossbar_links(p);
    if (!links || links->empty()) return std::nullopt;
    n = crossbar_numbers(*links);
  } else if (p.topology == Topology::Crossbar && !p.host_links.empty()) {
    n = crossbar_numbers(p.host_links);
  }
  n.latency *= p.latency_factor;
  n.bandwidth *= p.bandwidth_factor;
  return n;
}

double message_cost(const Platform& p, const NetworkNumbers& n, const std::string& function, std::uint64_t bytes) {
  const double send = p.mpi.send_overhead.value_or(p.mpi.overhead(function));
  return send + n.latency + static_cast<double>(bytes) / n.bandwidth + p.mpi.receive_overhead.value_or(0);
}

namespace {

bool communicates(CallClass c) {
  return c == CallClass::PointToPoint || c == CallClass::Collective || c == CallClass::Completion;
}

// The call's residual beyond its partner's lateness, times `ratio`.
double scaled(double residual, const PartnerWait* wait, double ratio) {
  if (residual <= 0) return residual;
  const double dependent = wait ? std::min(wait->dependent, residual) : 0.0;
  return dependent + (residual - dependent) * ratio;
}

}  // namespace

std::optional<CallResiduals> residuals_scaled_with_network(const Trace& trace, const CallResiduals& residuals,
                                                           const Platform& source, const Platform& target) {
  const auto from = network_numbers(source), to = network_numbers(target);
  if (!from || !to || residuals.by_rank.size() != trace.rank_count()) return std::nullopt;
  CallResiduals out = residuals;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    const std::vector<PartnerWait>* waits = r < residuals.waits.size() ? &residuals.waits[r] : nullptr;
    std::size_t next_wait = 0;
    for (std::size_t i = 0; i < out.by_rank[r].size() && i < rt.mpi_calls.size(); ++i) {
      const CallSpan& call = rt.mpi_calls[i];
      if (!communicates(call_class(trace, r, call))) continue;
      const std::string& function = trace.defs.region_of(rt.events[call.enter].ref).name;
      const std::uint64_t bytes = call_bytes(trace, r, call);
      const double before = message_cost(source, *from, function, bytes);
      if (before <= 0) continue;
      while (waits && next_wait < waits->size() && (*waits)[next_wait].call < i) ++next_wait;
      const bool waited = waits && next_wait < waits->size() && (*waits)[next_wait].call == i;
      out.by_rank[r][i] = scaled(out.by_rank[r][i], waited ? &(*waits)[next_wait] : nullptr,
                                 message_cost(target, *to, function, bytes) / before);
    }
  }
  return out;
}

}  // namespace wisp
