// Which part of a call's residual is its own cost and which is a partner's lateness (residuals.hpp).
// The anchored identity replays each call with the model and holds it to its traced end E; the model
// ended it at M = E − residual. If the call depends on a partner that arrived at P with M < P ≤ E
// (the model let it finish before the partner came, the trace did not), the residual's part P − M is
// waiting for that partner: a scenario that moves the partner moves it. Example (the ring oracle,
// tests/data/whatif/imb8_ring): a rank's MPI_Sendrecv to the slow rank went by rendezvous while the
// model's eager send left at once, so its wait for the slow rank became residual; kept as fixed
// cost, it would survive the rebalancing that removes the lateness.
#include <algorithm>
#include <limits>

#include "wisp/replay/residuals.hpp"

namespace wisp {

namespace {

// Residuals and gaps below SimGrid's time precision are rounding.
constexpr double kResolution = 1e-9;

struct Arrival {
  double time = -1;
  Rank rank = kNone;
  std::uint32_t call = 0;
};

double at(const std::vector<std::vector<double>>& table, Rank r, std::uint32_t call) {
  return r < table.size() && call < table[r].size() ? table[r][call] : -1.0;
}

// Index into rt.mpi_calls of the call holding event e (kNone: outside any call).
std::uint32_t call_holding(const RankTrace& rt, EventIndex e) {
  auto it = std::upper_bound(rt.mpi_calls.begin(), rt.mpi_calls.end(), e,
                             [](EventIndex i, const CallSpan& c) { return i < c.enter; });
  if (it == rt.mpi_calls.begin()) return kNone;
  --it;
  return it->leave >= e ? static_cast<std::uint32_t>(it - rt.mpi_calls.begin()) : kNone;
}

// The measured trace and the anchored replay's enter of every MPI call (by rank and call; a
// negative or missing value: the traced enter).
struct Arrivals {
  const Trace& t;
  const std::vector<std::vector<double>>& enters;

  // The partner's arrival: the enter of its call that holds event e.
  Arrival operator()(Rank rank, EventIndex e) const {
    const RankTrace& rt = t.ranks[rank];
    const std::uint32_t call = e == kNone ? kNone : call_holding(rt, e);
    if (call == kNone) return {};
    const double simulated = at(enters, rank, call);
    return Arrival{simulated >= 0 ? simulated : rt.events[rt.mpi_calls[call].enter].time, rank, call};
  }
};

// Arrivals at or after `before` are not kept (the latest partner a call's model end waited for).
void keep_latest(Arrival& latest, const Arrival& a, double before) {
  if (a.rank != kNone && a.time > latest.time && a.time < before) latest = a;
}

// The other side of a point-to-point record this call completes: a send's receiver posting its
// receive, a receive's sender entering its send.
Arrival p2p_partner(const Arrivals& arrival, const P2P& p) {
  const Trace& t = arrival.t;
  if (p.message == kNone || p.message >= t.messages.size()) return {};
  const Message& m = t.messages[p.message];
  if (p.is_send()) {
    const P2P& r = t.recv_of(m);
    return arrival(m.receiver, r.request_event != kNone ? r.request_event : r.event);
  }
  return arrival(m.sender, t.send_of(m).event);
}

// The latest member of the collective instance to arrive, other than `self`.
Arrival last_member(const Arrivals& arrival, Rank self, const CollectiveRecord& c, double before) {
  const Trace& t = arrival.t;
  Arrival latest;
  if (c.instance >= t.collectives.size()) return latest;
  const CollectiveInstance& instance = t.collectives[c.instance];
  for (std::uint32_t i = 0; i < instance.count; ++i) {
    const CollectiveMember& m = t.members(instance)[i];
    if (m.rank == self) continue;
    const CollectiveRecord& r = t.ranks[m.rank].collectives[m.record];
    keep_latest(latest, arrival(m.rank, r.begin != kNone ? r.begin : r.end), before);
  }
  return latest;
}

// The latest arrival of a partner the call's completion depends on (before `before`).
Arrival latest_partner(const Arrivals& arrival, Rank rank, const CallSpan& call,
                       double before = std::numeric_limits<double>::infinity()) {
  const RankTrace& rt = arrival.t.ranks[rank];
  Arrival latest;
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const Event& e = rt.events[k];
    switch (e.kind) {
      case EventKind::MpiSend:           // blocking: completes in this call
      case EventKind::MpiIsendComplete:  // a Wait/Test completing an Isend
      case EventKind::MpiRecv:
      case EventKind::MpiIrecv:
        keep_latest(latest, p2p_partner(arrival, rt.p2p[e.p2p()]), before);
        break;
      case EventKind::MpiCollectiveEnd:
        keep_latest(latest, last_member(arrival, rank, rt.collectives[e.collective()], before), before);
        break;
      default:
        break;
    }
  }
  return latest;
}

}  // namespace

namespace {

// The network model's part of one call: its model time from the later of its enter and the last
// partner to arrive before the model ended it (what the model may have waited for).
double network_part(double enter, double model_end, double partner, double traced) {
  if (enter < 0 || model_end < enter) return 0;
  return std::clamp(model_end - std::max(enter, partner), 0.0, traced);
}

}  // namespace

void attribute_residuals(const Trace& measured, const AnchoredCalls& anchored, CallResiduals& residuals) {
  const Arrivals arrival{measured, anchored.enter};
  residuals.waits.assign(residuals.by_rank.size(), {});
  residuals.network.assign(residuals.by_rank.size(), {});
  for (Rank r = 0; r < measured.rank_count() && r < residuals.by_rank.size(); ++r) {
    const RankTrace& rt = measured.ranks[r];
    const auto& values = residuals.by_rank[r];
    residuals.network[r].assign(values.size(), 0.0);
    for (std::uint32_t i = 0; i < rt.mpi_calls.size() && i < values.size(); ++i) {
      const CallSpan& call = rt.mpi_calls[i];
      const MpiFunction f = measured.defs.region_of(rt.events[call.enter].callpath()).mpi;
      const double end = rt.events[call.leave].time, model_end = end - values[i];
      const Arrival partner = latest_partner(arrival, r, call);
      if (f != MpiFunction::Init && f != MpiFunction::InitThread && f != MpiFunction::Finalize) {
        const double m = at(anchored.model_end, r, i);
        const Arrival waited_for = partner.time < m ? partner : latest_partner(arrival, r, call, m);
        residuals.network[r][i] =
            network_part(at(anchored.enter, r, i), m, waited_for.time, end - rt.events[call.enter].time);
      }
      if (values[i] <= kResolution) continue;
      if (partner.rank == kNone || partner.time <= model_end + kResolution || partner.time > end) continue;
      residuals.waits[r].push_back(PartnerWait{i, partner.rank, partner.call, partner.time - model_end});
    }
  }
}

CallResiduals fixed_residuals(const CallResiduals& residuals) {
  CallResiduals fixed;
  fixed.by_rank = residuals.by_rank;
  return fixed;
}

}  // namespace wisp
