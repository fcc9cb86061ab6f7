// Summary of trace-anchored residuals per call class. See residuals.hpp.
#include "wisp/replay/residuals.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "call_shape.hpp"

namespace wisp {

std::string_view to_string(CallClass c) {
  switch (c) {
    case CallClass::PointToPoint:
      return "point-to-point";
    case CallClass::Collective:
      return "collectives";
    case CallClass::Completion:
      return "Wait/Test";
    case CallClass::InitFinalize:
      return "Init/Finalize";
    case CallClass::Other:
      return "other";
  }
  return "?";
}

CallClass call_class(const Trace& trace, Rank rank, const CallSpan& call) {
  const RankTrace& rt = trace.ranks[rank];
  const Region& region = trace.defs.region_of(rt.events[call.enter].callpath());
  switch (region.mpi) {
    case MpiFunction::Init:
    case MpiFunction::InitThread:
    case MpiFunction::Finalize:
      return CallClass::InitFinalize;
    case MpiFunction::Wait:
    case MpiFunction::Waitall:
    case MpiFunction::Waitany:
    case MpiFunction::Waitsome:
    case MpiFunction::Test:
    case MpiFunction::Testall:
    case MpiFunction::Testany:
    case MpiFunction::Testsome:
      return CallClass::Completion;
    default:
      break;
  }
  if (region.kind == RegionKind::MpiCollective) return CallClass::Collective;
  if (region.kind == RegionKind::MpiPointToPoint) return CallClass::PointToPoint;
  return CallClass::Other;
}

std::uint64_t call_bytes(const Trace& trace, Rank rank, const CallSpan& call) {
  const RankTrace& rt = trace.ranks[rank];
  std::uint64_t bytes = 0;
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const Event& e = rt.events[k];
    if (e.kind >= EventKind::MpiSend && e.kind <= EventKind::MpiRequestCancelled) {
      bytes = std::max(bytes, rt.p2p[e.p2p()].bytes);
    } else if (e.kind == EventKind::MpiCollectiveEnd) {
      const CollectiveRecord& c = rt.collectives[e.collective()];
      if (c.comm < trace.defs.comms.size())
        bytes = std::max(bytes,
                         collective_buffer(c.op, c.sent, c.received, trace.defs.comms[c.comm].size(), c.root == rank));
    }
  }
  return bytes;
}

namespace {

bool has_unmatched_message(const RankTrace& rt, const CallSpan& call) {
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const EventKind kind = rt.events[k].kind;
    if ((kind == EventKind::MpiSend || kind == EventKind::MpiIsend || kind == EventKind::MpiRecv ||
         kind == EventKind::MpiIrecv) &&
        rt.p2p[rt.events[k].p2p()].message == kNone)
      return true;
  }
  return false;
}

void add(ResidualClass& to, const ResidualClass& x) {
  to.calls += x.calls;
  to.traced += x.traced;
  to.residual += x.residual;
  to.dependent += x.dependent;
  to.network += x.network;
  to.waiting += x.waiting;
  to.model_slower += x.model_slower;
  to.excess += x.excess;
  to.unmatched += x.unmatched;
}

}  // namespace

ResidualClass ResidualSummary::total() const {
  ResidualClass t;
  for (const ResidualClass& c : by_class) add(t, c);
  return t;
}

double partner_lateness(const CallResiduals& residuals, Rank rank, std::size_t call, std::size_t& next) {
  if (rank >= residuals.waits.size()) return 0;
  const std::vector<PartnerWait>& waits = residuals.waits[rank];
  while (next < waits.size() && waits[next].call < call) ++next;
  return next < waits.size() && waits[next].call == call ? waits[next].dependent : 0.0;
}

ResidualSummary summarize(const Trace& trace, const CallResiduals& residuals) {
  ResidualSummary s;
  for (Rank r = 0; r < trace.rank_count() && r < residuals.by_rank.size(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    const auto& values = residuals.by_rank[r];
    const auto* network = r < residuals.network.size() ? &residuals.network[r] : nullptr;
    std::size_t next_wait = 0;
    for (std::size_t i = 0; i < rt.mpi_calls.size() && i < values.size(); ++i) {
      const CallSpan& call = rt.mpi_calls[i];
      bool communicates = false;
      for (EventIndex k = call.enter; k <= call.leave && !communicates; ++k)
        communicates = replay_impl::is_communication(rt.events[k].kind);
      const CallClass cc = call_class(trace, r, call);
      const bool local = trace.defs.region_of(rt.events[call.enter].callpath()).kind == RegionKind::MpiOther;
      if (!communicates && local && cc != CallClass::InitFinalize) continue;  // keeps its traced duration
      ResidualClass& c = s.by_class[static_cast<int>(cc)];
      ++c.calls;
      const double traced = rt.events[call.leave].time - rt.events[call.enter].time;
      c.traced += traced;
      const double v = values[i], dependent = partner_lateness(residuals, r, i, next_wait);
      const double net = network && i < network->size() ? (*network)[i] : 0.0;
      if (v > 0) c.residual += v;
      if (v < 0) ++c.model_slower, c.excess -= v;
      c.dependent += dependent;
      c.network += net;
      if (cc != CallClass::InitFinalize) c.waiting += std::max(0.0, traced - net - std::max(0.0, v - dependent));
      if (has_unmatched_message(rt, call)) ++c.unmatched;
    }
  }
  for (const auto& waits : residuals.waits) {
    s.partner_waits += waits.size();
    for (const PartnerWait& w : waits) s.dependent += w.dependent;
  }
  return s;
}

std::string residual_text(const ResidualSummary& s) {
  std::string t;
  for (int i = 0; i < kCallClassCount; ++i) {
    const ResidualClass& c = s.by_class[i];
    if (c.calls == 0) continue;
    t += fmt::format("  {:<15} {:>9} calls  traced {:>12.6f} s  residual {:>12.6f} s ({:5.1f} %)\n",
                     to_string(static_cast<CallClass>(i)), c.calls, c.traced, c.residual,
                     c.traced > 0 ? 100 * c.residual / c.traced : 0.0);
  }
  const ResidualClass all = s.total();
  if (all.model_slower > 0)
    t += fmt::format(
        "  {} call(s) ended later in the model alone than traced (by {:.6f} s in total: clock "
        "skew or a model above their cost): they use the model's time\n",
        all.model_slower, all.excess);
  if (s.partner_waits > 0)
    t += fmt::format(
        "  {} call(s) ended only when a partner arrived that the model does not make them wait for: "
        "{:.6f} s of their residual is that partner's lateness, re-derived in scenarios\n",
        s.partner_waits, s.dependent);
  if (all.unmatched > 0)
    t += fmt::format("  {} call(s) with an unmatched message have no derivable cost: they use the model\n",
                     all.unmatched);
  return t;
}

std::vector<std::vector<double>> typical_call_costs(const Trace& trace, const MpiCosts& mpi,
                                                    const std::vector<std::string>& rank_hosts) {
  std::vector<std::vector<double>> out(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    out[r].assign(rt.mpi_calls.size(), 0.0);
    const auto host = r < rank_hosts.size() ? mpi.call_costs.find(rank_hosts[r]) : mpi.call_costs.end();
    if (host == mpi.call_costs.end()) continue;
    for (std::size_t i = 0; i < rt.mpi_calls.size(); ++i) {
      const auto function = host->second.find(trace.defs.region_of(rt.events[rt.mpi_calls[i].enter].callpath()).name);
      if (function == host->second.end()) continue;
      const auto cost = function->second.find(size_class(call_bytes(trace, r, rt.mpi_calls[i])));
      if (cost != function->second.end()) out[r][i] = cost->second;
    }
  }
  return out;
}

}  // namespace wisp
