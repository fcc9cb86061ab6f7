// MPI call of every communication record, by one forward pass per rank. See call_index.hpp.
#include "wisp/analysis/call_index.hpp"

namespace wisp {

namespace {

void index_rank(const Trace& trace, Rank r, RankCalls& out) {
  const RankTrace& rt = trace.ranks[r];
  const Definitions& defs = trace.defs;
  out.p2p_event.assign(rt.p2p.size(), kNone);
  out.p2p_request.assign(rt.p2p.size(), kNone);
  out.collective.assign(rt.collectives.size(), kNone);
  std::vector<std::uint32_t> open;  // open MPI calls, innermost last
  std::uint32_t next = 0;
  for (EventIndex i = 0; i < rt.events.size(); ++i) {
    while (next < rt.mpi_calls.size() && rt.mpi_calls[next].enter == i) {
      const MpiFunction f = defs.region_of(rt.events[i].callpath()).mpi;
      if ((f == MpiFunction::Init || f == MpiFunction::InitThread) && out.init == kNone) out.init = next;
      if (f == MpiFunction::Finalize && out.finalize == kNone) out.finalize = next;
      open.push_back(next++);
    }
    const Event& e = rt.events[i];
    const std::uint32_t call = open.empty() ? kNone : open.back();
    switch (e.kind) {
      case EventKind::MpiSend:
      case EventKind::MpiIsend:
      case EventKind::MpiRecv:
      case EventKind::MpiIrecv:
        if (rt.p2p[e.p2p()].event == i) out.p2p_event[e.p2p()] = call;
        break;
      case EventKind::MpiIsendComplete:
      case EventKind::MpiIrecvRequest:
        if (rt.p2p[e.p2p()].request_event == i) out.p2p_request[e.p2p()] = call;
        break;
      case EventKind::MpiCollectiveBegin:
        out.collective[e.collective()] = call;
        break;
      default:
        break;
    }
    while (!open.empty() && rt.mpi_calls[open.back()].leave == i) open.pop_back();
  }
}

}  // namespace

CallIndex index_mpi_calls(const Trace& trace) {
  CallIndex index;
  index.ranks.resize(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) index_rank(trace, r, index.ranks[r]);
  return index;
}

CallTimes call_times(const Trace& trace, Rank r, std::uint32_t call) {
  const RankTrace& rt = trace.ranks[r];
  const CallSpan& span = rt.mpi_calls[call];
  const Event& enter = rt.events[span.enter];
  const CallpathId cp = enter.callpath();
  return CallTimes{enter.time, rt.events[span.leave].time, cp, trace.defs.region_of(cp).mpi};
}

bool is_blocking_send(MpiFunction f) {
  return f == MpiFunction::Send || f == MpiFunction::Bsend || f == MpiFunction::Ssend || f == MpiFunction::Rsend ||
         f == MpiFunction::Sendrecv || f == MpiFunction::SendrecvReplace;
}
bool is_wait_single(MpiFunction f) { return f == MpiFunction::Wait; }
bool is_wait_multi(MpiFunction f) {
  return f == MpiFunction::Waitall || f == MpiFunction::Waitany || f == MpiFunction::Waitsome;
}
bool is_test(MpiFunction f) {
  return f == MpiFunction::Test || f == MpiFunction::Testall || f == MpiFunction::Testany || f == MpiFunction::Testsome;
}

}  // namespace wisp
