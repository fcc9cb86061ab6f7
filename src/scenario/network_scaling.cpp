// Residuals that scale with the network. See network_scaling.hpp.
#include "wisp/scenario/network_scaling.hpp"

#include "wisp/replay/placement.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace wisp {

namespace {

NetworkNumbers crossbar_numbers(const std::vector<HostLink>& links) {
  const Platform::NodeNetwork route = mean_route(links);
  return NetworkNumbers{route.latency, route.bandwidth};
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

// What `wisp calibrate` measures beside the links: a platform with any of it is calibrated.
bool calibrated(const Platform& p) {
  const MpiCosts& m = p.mpi;
  return m.typical_excess || m.eager_copy || m.send_overhead || m.receive_overhead || !m.call_costs.empty() ||
         !p.size_factors.empty();
}

}  // namespace

std::optional<NetworkNumbers> typed_network(const Platform& p) {
  if (calibrated(p) || p.intra || (p.file.empty() && p.topology != Topology::Crossbar)) return std::nullopt;
  return network_numbers(p);
}

namespace {

bool communicates(CallClass c) {
  return c == CallClass::PointToPoint || c == CallClass::Collective || c == CallClass::Completion;
}

// The call's residual beyond its partner's lateness `dependent`, times `ratio`.
double scaled(double residual, double dependent, double ratio) {
  if (residual <= 0) return residual;
  dependent = std::min(dependent, residual);
  return dependent + (residual - dependent) * ratio;
}

}  // namespace

// The two networks of a placed platform: its own, and the calibration inside its hosts where the
// ranks' hosts are known; `pick` is a call's.
template <typename Network>
struct Sides {
  std::optional<Platform> inside_platform;  // the calibration with the platform's what-if factors
  Network own;
  std::optional<Network> inside;
  const std::vector<std::size_t>& hosts;
  Sides(const PlacedPlatform& p, const std::function<Network(const Platform&)>& make)
      : inside_platform(with_factors(p)), own(make(p.platform)), hosts(p.hosts) {
    if (inside_platform) inside.emplace(make(*inside_platform));
  }
  Sides(const Sides&) = delete;
  static std::optional<Platform> with_factors(const PlacedPlatform& p) {
    if (!p.platform.intra_calibration || p.hosts.empty()) return std::nullopt;
    Platform c = *p.platform.intra_calibration;
    c.speed_factor = p.platform.speed_factor, c.latency_factor = p.platform.latency_factor;
    c.bandwidth_factor = p.platform.bandwidth_factor;
    return c;
  }
  const Network& pick(const Trace& trace, Rank r, const CallSpan& call) const {
    if (!inside) return own;
    const RankTrace& rt = trace.ranks[r];
    const MpiFunction f = trace.defs.region_of(rt.events[call.enter].callpath()).mpi;
    if (f == MpiFunction::Init || f == MpiFunction::InitThread) return own;
    bool collective = false;  // an MPI_Finalize without a record of its own: a barrier of every rank
    for (EventIndex k = call.enter; k <= call.leave && !collective; ++k)
      collective = rt.events[k].kind == EventKind::MpiCollectiveEnd;
    return stays_on_host(trace, r, call.enter, call.leave, f == MpiFunction::Finalize && !collective, hosts) ? *inside
                                                                                                             : own;
  }
};

// A platform with its network in numbers (network_numbers).
struct Priced {
  const Platform& platform;
  std::optional<NetworkNumbers> numbers;
};

std::optional<CallResiduals> residuals_scaled_with_network(const Trace& trace, const CallResiduals& residuals,
                                                           const PlacedPlatform& source, const PlacedPlatform& target) {
  const auto priced = [](const Platform& p) { return Priced{p, network_numbers(p)}; };
  const Sides<Priced> from(source, priced), to(target, priced);
  const auto numbered = [](const Sides<Priced>& s) { return s.own.numbers && (!s.inside || s.inside->numbers); };
  if (!numbered(from) || !numbered(to) || residuals.by_rank.size() != trace.rank_count()) return std::nullopt;
  CallResiduals out = residuals;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    std::size_t next_wait = 0;
    for (std::size_t i = 0; i < out.by_rank[r].size() && i < rt.mpi_calls.size(); ++i) {
      const CallSpan& call = rt.mpi_calls[i];
      if (!communicates(call_class(trace, r, call))) continue;
      const std::string& function = trace.defs.region_of(rt.events[call.enter].callpath()).name;
      const std::uint64_t bytes = call_bytes(trace, r, call);
      const Priced &a = from.pick(trace, r, call), &b = to.pick(trace, r, call);
      const double before = message_cost(a.platform, *a.numbers, function, bytes);
      if (before <= 0) continue;
      out.by_rank[r][i] = scaled(out.by_rank[r][i], partner_lateness(residuals, r, i, next_wait),
                                 message_cost(b.platform, *b.numbers, function, bytes) / before);
    }
  }
  return out;
}

namespace {

// Messages a call sends (its sends and started send requests) and receives (its receives and
// completed receive requests); a collective's rounds each send one and receive one. Found once per
// call of a pass, with the call's bytes (call_bytes).
struct Messages {
  std::uint32_t sent = 0, received = 0, rounds = 0;  // rounds: a collective's, counted in both
  double bytes = 0;
};
Messages messages(const Trace& trace, Rank r, const CallSpan& call) {
  const RankTrace& rt = trace.ranks[r];
  Messages n;
  n.bytes = static_cast<double>(call_bytes(trace, r, call));
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const Event& e = rt.events[k];
    if (e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend) ++n.sent;
    if (e.kind == EventKind::MpiRecv || e.kind == EventKind::MpiIrecv) ++n.received;
    if (e.kind == EventKind::MpiCollectiveEnd) {
      const CollectiveRecord& c = rt.collectives[e.collective()];
      if (c.comm < trace.defs.comms.size()) {
        const std::uint32_t rounds = ceil_log2(trace.defs.comms[c.comm].size());
        n.sent += rounds, n.received += rounds, n.rounds += rounds;
      }
    }
  }
  return n;
}

// A typical message's excess over the fastest on a platform, its what-if factors applied.
double typical_excess(const Platform& p, std::uint64_t bytes) {
  if (!p.mpi.typical_excess) return 0;
  return p.mpi.typical_excess->latency * p.latency_factor +
         static_cast<double>(bytes) * p.mpi.typical_excess->per_byte / p.bandwidth_factor;
}

// What a message's eager send copies on a platform (0 when the platform sends it by rendezvous),
// its bandwidth factor applied.
double eager_copy(const Platform& p, std::uint64_t bytes) {
  if (!p.mpi.eager_copy || bytes > p.mpi.eager_threshold) return 0;
  return static_cast<double>(std::min(bytes, p.mpi.eager_copy->up_to)) * p.mpi.eager_copy->per_byte /
         p.bandwidth_factor;
}

// The part of one call a network typed in numbers holds (typed_network): its latency per message
// the call sends, its bytes over the bandwidth per message it receives.
double typed_part(const Messages& m, const NetworkNumbers& n) {
  return m.sent * n.latency + m.received * m.bytes / n.bandwidth;
}

// A platform as a platform change moves its typical part, found once per pass (a file is read to find
// its numbers): its network typed in numbers if it is one; a calibrated one's numbers, which price its
// collectives' rounds (none with a network in numbers inside its nodes: its calls' messages take either).
// With a calibration inside its nodes each network is one of these (Sides, per call).
struct TypicalNetwork {
  const Platform& platform;
  std::optional<NetworkNumbers> typed, numbers;
  explicit TypicalNetwork(const Platform& p)
      : platform(p),
        typed(typed_network(p)),
        numbers(calibrated(p) && (!p.intra || p.intra_calibration) ? network_numbers(p) : std::nullopt) {}
  bool any() const { return platform.mpi.typical_excess || platform.mpi.eager_copy || typed || numbers; }
};

// The typical network part of one call on a platform: its received messages' typical excess and its
// sent messages' eager copy (not a synchronous send's: it waits for its receiver); on a network typed
// in numbers, the part its numbers hold.
double typical_network(const Trace& trace, Rank r, const CallSpan& call, const Messages& m, const TypicalNetwork& n) {
  if (n.typed) return typed_part(m, *n.typed);
  const Platform& p = n.platform;
  const RankTrace& rt = trace.ranks[r];
  double seconds = m.received * typical_excess(p, static_cast<std::uint64_t>(m.bytes));
  const MpiFunction f = trace.defs.region_of(rt.events[call.enter].callpath()).mpi;
  if (f == MpiFunction::Ssend || f == MpiFunction::Issend) return seconds;
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const Event& e = rt.events[k];
    if (e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend) seconds += eager_copy(p, rt.p2p[e.p2p()].bytes);
  }
  return seconds;
}

// A collective's rounds priced on a network: rounds x (L + b/B).
double rounds_price(const Messages& m, const NetworkNumbers& n) {
  return m.rounds * (n.latency + m.bytes / n.bandwidth);
}

// The price of a collective's rounds on a calibrated network whose latency the calibration found (0
// for any other call, or a latency fitted to 0: a price of bytes alone says nothing of a round's
// work): what its members' own cost scales with. A member's time in the call beyond its partners'
// lateness is the rounds' work: sending its part, progressing the transport until the others' is
// in (over TCP socket calls and polling, in shared memory copies and flags), combining a few bytes.
// The model charges the rounds' transfer only to a member that waits for its partners, and their
// overheads as the platform's; the rest of that work is residual and goes with the network.
double collective_price(const Messages& m, const TypicalNetwork& n) {
  return m.rounds && n.numbers && n.numbers->latency > 0 ? rounds_price(m, *n.numbers) : 0.0;
}

// Between two networks typed in numbers: the share of a call's own residual the source's numbers
// hold (at most `before`, its part on the source) scales as that part does, to `after`: a model
// that explains the whole call (no residual) stays exact, and a call keeps what no number holds.
double scaled_share(double own, double before, double after) {
  return before > 0 ? std::min(own, before) * (after / before - 1) : 0;
}

// Every call with a residual (not Init or Finalize) as visit(rank, call index, call, own residual
// beyond a partner's lateness).
template <class Visit>
void visit_calls(const Trace& trace, const CallResiduals& residuals, Visit&& visit) {
  for (Rank r = 0; r < trace.rank_count() && r < residuals.by_rank.size(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    std::size_t next_wait = 0;
    for (std::size_t i = 0; i < residuals.by_rank[r].size() && i < rt.mpi_calls.size(); ++i) {
      const double residual = residuals.by_rank[r][i];
      const CallSpan& call = rt.mpi_calls[i];
      const double lateness = partner_lateness(residuals, r, i, next_wait);
      if (residual < 0 || call_class(trace, r, call) == CallClass::InitFinalize) continue;
      visit(r, i, call, residual - std::min(lateness, residual));
    }
  }
}

// A collective call's own cost that is its rounds' work: at most the median own cost of its call
// path's instances on its rank (they do the same rounds); what an instance holds beyond it (its
// process lost the core, a page fault) is not the network's and stays as measured.
class RoundsWork {
 public:
  RoundsWork(const Trace& trace, const CallResiduals& residuals) {
    std::map<std::pair<Rank, CallpathId>, std::vector<double>> own;
    visit_calls(trace, residuals, [&](Rank r, std::size_t, const CallSpan& call, double o) {
      if (call_class(trace, r, call) == CallClass::Collective) own[key(trace, r, call)].push_back(o);
    });
    for (auto& [k, v] : own) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      median_.emplace(k, v[v.size() / 2]);
    }
  }
  double of(const Trace& trace, Rank r, const CallSpan& call, double own) const {
    const auto it = median_.find(key(trace, r, call));
    return it == median_.end() ? own : std::min(own, it->second);
  }

 private:
  static std::pair<Rank, CallpathId> key(const Trace& trace, Rank r, const CallSpan& call) {
    return {r, trace.ranks[r].events[call.enter].callpath()};
  }
  std::map<std::pair<Rank, CallpathId>, double> median_;
};

}  // namespace

std::optional<CallResiduals> residuals_with_typical_network(const Trace& trace, const CallResiduals& residuals,
                                                            const PlacedPlatform& source,
                                                            const PlacedPlatform& target) {
  const auto typical = [](const Platform& p) { return TypicalNetwork(p); };
  const Sides<TypicalNetwork> sources(source, typical), targets(target, typical);
  const auto any = [](const Sides<TypicalNetwork>& s) { return s.own.any() || (s.inside && s.inside->any()); };
  if ((!any(sources) && !any(targets)) || residuals.by_rank.size() != trace.rank_count()) return std::nullopt;
  CallResiduals out = residuals;
  const RoundsWork work(trace, residuals);
  visit_calls(trace, residuals, [&](Rank r, std::size_t i, const CallSpan& call, double own) {
    const TypicalNetwork &from = sources.pick(trace, r, call), &to = targets.pick(trace, r, call);
    const bool both_typed = from.typed && to.typed;
    const Messages m = messages(trace, r, call);
    const double before = typical_network(trace, r, call, m, from), after = typical_network(trace, r, call, m, to);
    if (both_typed) {
      out.by_rank[r][i] += scaled_share(own, before, after);
      return;
    }
    double change = after - before;
    const double price = collective_price(m, from);
    if (price > 0 && (to.numbers || to.typed)) {  // a collective's own cost scales with its rounds' price
      // A network typed in numbers holds the rounds' work in its part (`after`): the rest goes.
      const double target_price = to.numbers ? rounds_price(m, *to.numbers) : 0.0;
      change += work.of(trace, r, call, own - std::min(own, before)) * (target_price / price - 1);
    }
    out.by_rank[r][i] += std::max(-own, change);
  });
  return out;
}

double typical_excess_seconds(const Trace& trace, const CallResiduals& residuals, const PlacedPlatform& platform) {
  double sum = 0;
  const Sides<TypicalNetwork> sides(platform, [](const Platform& p) { return TypicalNetwork(p); });
  if (!sides.own.any() && !(sides.inside && sides.inside->any())) return sum;
  const RoundsWork work(trace, residuals);
  visit_calls(trace, residuals, [&](Rank r, std::size_t, const CallSpan& call, double own) {
    const TypicalNetwork& network = sides.pick(trace, r, call);
    const Messages m = messages(trace, r, call);
    const double part =
        collective_price(m, network) > 0 ? work.of(trace, r, call, own) : typical_network(trace, r, call, m, network);
    sum += std::min(own, part);
  });
  return sum;
}

}  // namespace wisp
