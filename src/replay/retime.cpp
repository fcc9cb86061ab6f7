// Rebuilds a trace with new event times. See retime.hpp.
#include "wisp/replay/retime.hpp"

#include <fmt/format.h>

#include "wisp/error.hpp"
#include "wisp/trace/builder.hpp"

namespace wisp {

namespace {

void append(RankBuilder& b, const Trace& in, const RankTrace& rt, const Event& e, double t) {
  switch (e.kind) {
    case EventKind::ProgramBegin:
      b.program_begin(t);
      break;
    case EventKind::ProgramEnd:
      b.program_end(t);
      break;
    case EventKind::Enter:
      b.enter(t, in.defs.callpaths[e.callpath()].region);
      break;
    case EventKind::Leave:
      b.leave(t, in.defs.callpaths[e.callpath()].region);
      break;
    case EventKind::MpiSend: {
      const P2P& p = rt.p2p[e.p2p()];
      b.send(t, p.peer, p.comm, p.tag, p.bytes);
      break;
    }
    case EventKind::MpiIsend: {
      const P2P& p = rt.p2p[e.p2p()];
      b.isend(t, p.peer, p.comm, p.tag, p.bytes, p.request);
      break;
    }
    case EventKind::MpiIsendComplete:
      b.isend_complete(t, rt.p2p[e.p2p()].request);
      break;
    case EventKind::MpiIrecvRequest:
      b.irecv_request(t, rt.p2p[e.p2p()].request);
      break;
    case EventKind::MpiIrecv: {
      const P2P& p = rt.p2p[e.p2p()];
      b.irecv(t, p.peer, p.comm, p.tag, p.bytes, p.request);
      break;
    }
    case EventKind::MpiRecv: {
      const P2P& p = rt.p2p[e.p2p()];
      b.recv(t, p.peer, p.comm, p.tag, p.bytes);
      break;
    }
    case EventKind::MpiRequestTest:
      b.request_test(t, rt.p2p[e.p2p()].request);
      break;
    case EventKind::MpiRequestCancelled:
      b.request_cancelled(t, rt.p2p[e.p2p()].request);
      break;
    case EventKind::MpiCollectiveBegin:
      b.collective_begin(t);
      break;
    case EventKind::MpiCollectiveEnd: {
      const CollectiveRecord& c = rt.collectives[e.collective()];
      b.collective_end(t, c.op, c.comm, c.root, c.sent, c.received);
      break;
    }
    case EventKind::CommCreate:
      b.comm_create(t, e.comm());
      break;
    case EventKind::CommDestroy:
      b.comm_destroy(t, e.comm());
      break;
  }
}

}  // namespace

namespace {

// `consumed` (the same times, or null): each rank's times are freed once its events are built.
Trace retime_all(const Trace& trace, const std::vector<std::vector<double>>& times,
                 std::vector<std::vector<double>>* consumed) {
  if (times.size() != trace.rank_count())
    throw Error(fmt::format("retimed: {} ranks of times for a trace of {} ranks", times.size(), trace.rank_count()));
  Definitions defs = trace.defs;
  defs.callpaths.clear();
  TraceBuilder builder(std::move(defs));
  const Clock& clock = trace.defs.clock;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    if (times[r].size() != rt.events.size())
      throw Error(fmt::format("retimed: rank {} has {} times for {} events", r, times[r].size(), rt.events.size()));
    RankBuilder& b = builder.rank(r);
    b.reserve(rt.events.size());
    for (EventIndex i = 0; i < rt.events.size(); ++i) append(b, trace, rt, rt.events[i], clock.snap(times[r][i]));
    if (consumed) std::vector<double>().swap((*consumed)[r]);
  }
  Trace out = builder.finish();
  for (Rank r = 0; r < trace.rank_count(); ++r) {  // hybrid traces: the other threads follow their master
    out.ranks[r].others = trace.ranks[r].others;
    out.ranks[r].thread_records = trace.ranks[r].thread_records;
    out.ranks[r].metrics = trace.ranks[r].metrics;
    out.ranks[r].other_metrics = trace.ranks[r].other_metrics;
    out.ranks[r].rma_records = trace.ranks[r].rma_records;
    out.ranks[r].attributes = trace.ranks[r].attributes;
    move_other_locations(trace.ranks[r], out.ranks[r]);
    for (auto& location : out.ranks[r].rma_records)
      for (RmaRecord& e : location) e.time = clock.snap(e.time);
    for (auto& location : out.ranks[r].metrics)
      for (MetricSample& s : location.samples) s.time = clock.snap(s.time);
    for (auto& location : out.ranks[r].other_metrics)
      for (MetricSample& s : location.samples) s.time = clock.snap(s.time);
    for (auto& location : out.ranks[r].others)
      for (LocationEvent& e : location) e.time = clock.snap(e.time);
    for (auto& location : out.ranks[r].thread_records)
      for (ThreadRecord& e : location) e.time = clock.snap(e.time);
  }
  return out;
}

}  // namespace

Trace retimed(const Trace& trace, const std::vector<std::vector<double>>& times) {
  return retime_all(trace, times, nullptr);
}

Trace retimed(const Trace& trace, std::vector<std::vector<double>>&& times) { return retime_all(trace, times, &times); }

}  // namespace wisp
