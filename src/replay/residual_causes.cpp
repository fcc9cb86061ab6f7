// Which part of a call's residual is its own cost and which is a partner's lateness (residuals.hpp).
// The anchored identity replays each call with the model and holds it to its traced end E; the model
// ended it at M = E − residual. If the call depends on a partner that arrived at P with M < P ≤ E
// (the model let it finish before the partner came, the trace did not), the residual's part P − M is
// waiting for that partner: a scenario that moves the partner moves it. Example (the ring oracle,
// tests/data/whatif/imb8_ring): a rank's MPI_Sendrecv to the slow rank went by rendezvous while the
// model's eager send left at once, so its wait for the slow rank became residual; kept as fixed
// cost, it would survive the rebalancing that removes the lateness.
#include <algorithm>

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

// Index into rt.mpi_calls of the call holding event e (kNone: outside any call).
std::uint32_t call_holding(const RankTrace& rt, EventIndex e) {
  auto it = std::upper_bound(rt.mpi_calls.begin(), rt.mpi_calls.end(), e,
                             [](EventIndex i, const CallSpan& c) { return i < c.enter; });
  if (it == rt.mpi_calls.begin()) return kNone;
  --it;
  return it->leave >= e ? static_cast<std::uint32_t>(it - rt.mpi_calls.begin()) : kNone;
}

// The partner's arrival: the enter of its call that holds event e.
Arrival arrival(const Trace& t, Rank rank, EventIndex e) {
  const RankTrace& rt = t.ranks[rank];
  const std::uint32_t call = e == kNone ? kNone : call_holding(rt, e);
  if (call == kNone) return {};
  return Arrival{rt.events[rt.mpi_calls[call].enter].time, rank, call};
}

void keep_latest(Arrival& latest, const Arrival& a) {
  if (a.rank != kNone && a.time > latest.time) latest = a;
}

// The other side of a point-to-point record this call completes: a send's receiver posting its
// receive, a receive's sender entering its send.
Arrival p2p_partner(const Trace& t, const P2P& p) {
  if (p.message == kNone || p.message >= t.messages.size()) return {};
  const Message& m = t.messages[p.message];
  if (p.is_send()) {
    const P2P& r = t.recv_of(m);
    return arrival(t, m.receiver, r.request_event != kNone ? r.request_event : r.event);
  }
  return arrival(t, m.sender, t.send_of(m).event);
}

// The latest member of the collective instance to arrive, other than `self`.
Arrival last_member(const Trace& t, Rank self, const CollectiveRecord& c) {
  Arrival latest;
  if (c.instance >= t.collectives.size()) return latest;
  const CollectiveInstance& instance = t.collectives[c.instance];
  for (std::uint32_t i = 0; i < instance.count; ++i) {
    const CollectiveMember& m = t.members(instance)[i];
    if (m.rank == self) continue;
    const CollectiveRecord& r = t.ranks[m.rank].collectives[m.record];
    keep_latest(latest, arrival(t, m.rank, r.begin != kNone ? r.begin : r.end));
  }
  return latest;
}

// The latest arrival of a partner the call's completion depends on.
Arrival latest_partner(const Trace& t, Rank rank, const CallSpan& call) {
  const RankTrace& rt = t.ranks[rank];
  Arrival latest;
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const Event& e = rt.events[k];
    switch (e.kind) {
      case EventKind::MpiSend:           // blocking: completes in this call
      case EventKind::MpiIsendComplete:  // a Wait/Test completing an Isend
      case EventKind::MpiRecv:
      case EventKind::MpiIrecv:
        keep_latest(latest, p2p_partner(t, rt.p2p[e.ref]));
        break;
      case EventKind::MpiCollectiveEnd:
        keep_latest(latest, last_member(t, rank, rt.collectives[e.ref]));
        break;
      default:
        break;
    }
  }
  return latest;
}

}  // namespace

void attribute_residuals(const Trace& measured, CallResiduals& residuals) {
  residuals.waits.assign(residuals.by_rank.size(), {});
  for (Rank r = 0; r < measured.rank_count() && r < residuals.by_rank.size(); ++r) {
    const RankTrace& rt = measured.ranks[r];
    const auto& values = residuals.by_rank[r];
    for (std::uint32_t i = 0; i < rt.mpi_calls.size() && i < values.size(); ++i) {
      if (values[i] <= kResolution) continue;
      const CallSpan& call = rt.mpi_calls[i];
      const double end = rt.events[call.leave].time, model_end = end - values[i];
      const Arrival partner = latest_partner(measured, r, call);
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
