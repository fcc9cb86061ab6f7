// See mpi_program.hpp. The walk follows RankActor::run(): computation is the time between events
// outside communicating MPI calls, an MPI call without communication is computation, and a
// call's records are posted in event order.
#include "mpi_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "call_shape.hpp"
#include "init_timing.hpp"
#include "wisp/replay/residuals.hpp"

namespace wisp::replay_impl {

ProgramCosts program_costs(const Trace& trace, const MpiCosts& mpi, const std::vector<std::string>& rank_hosts) {
  ProgramCosts c;
  static_cast<CallPrices&>(c) = call_prices(trace, mpi);
  const InitTiming t = init_timing(trace, c.overhead_of_region);
  double last_ready = 0;
  for (Rank r = 0; r < trace.rank_count(); ++r)
    if (t.enter[r] >= 0) last_ready = std::max(last_ready, t.enter[r] + t.overhead[r]);
  c.init_wait.assign(trace.rank_count(), 0);
  for (Rank r = 0; r < trace.rank_count(); ++r)
    if (t.enter[r] >= 0) c.init_wait[r] = last_ready - (t.enter[r] + t.overhead[r]) + t.traced_cost[r];
  c.typical = typical_call_costs(trace, mpi, rank_hosts);
  return c;
}

namespace {

// The call's operations and completions, as RankActor::post_operations() posts them.
ProgramCall program_call(const Trace& trace, const RankTrace& rt, const CallShape& shape, EventIndex first,
                         EventIndex last, ExportLeftOut& left) {
  ProgramCall c;
  c.init = shape.init;
  c.finalize = shape.finalize;
  using K = ProgramOperation::Kind;
  const MpiFunction f = shape.has_enter ? trace.defs.regions[shape.region].mpi : MpiFunction::None;
  const bool synchronous = f == MpiFunction::Ssend || f == MpiFunction::Issend;
  auto p2p = [&](std::uint32_t record, K kind, bool blocking) {
    if (rt.p2p[record].message == kNone)
      ++left.unmatched_messages;
    else
      c.operations.push_back(ProgramOperation{kind, record, blocking, synchronous && kind == K::Send});
  };
  for (EventIndex k = first; k <= last; ++k) {
    const Event& e = rt.events[k];
    switch (e.kind) {
      case EventKind::MpiSend:
        p2p(e.p2p(), K::Send, true);
        break;
      case EventKind::MpiIsend:
        p2p(e.p2p(), K::Send, false);
        break;
      case EventKind::MpiRecv:
        p2p(e.p2p(), K::Receive, true);
        break;
      case EventKind::MpiIrecvRequest:
        p2p(e.p2p(), K::Receive, false);
        break;
      case EventKind::MpiIsendComplete:
      case EventKind::MpiIrecv:
        if (rt.p2p[e.p2p()].message != kNone) c.completed.push_back(e.p2p());
        break;
      case EventKind::MpiRequestCancelled:
        ++left.cancelled_requests;
        break;
      case EventKind::MpiCollectiveEnd: {
        const CollectiveRecord& r = rt.collectives[e.collective()];
        if (shape.init || r.comm == kNone) break;  // Init: synchronised as a whole (init_wait)
        if (r.instance == kNone || !trace.collectives[r.instance].complete)
          ++left.incomplete_collectives;
        else
          c.operations.push_back(ProgramOperation{K::Collective, e.collective(), true, false});
        break;
      }
      default:
        break;
    }
  }
  c.finalize_barrier = shape.finalize && !shape.has_collective && trace.defs.world != kNone;
  return c;
}

}  // namespace

void walk_program(const Trace& trace, Rank rank, const ProgramCosts& costs, ProgramWriter& out, ExportLeftOut& left) {
  const RankTrace& rt = trace.ranks[rank];
  const auto& events = rt.events;
  if (events.empty()) return;
  if (events[0].time > 0) out.idle(events[0].time);
  double computation = 0, previous = events[0].time;
  std::size_t next_call = 0;
  for (EventIndex i = 0; i < events.size(); ++i) {
    computation += events[i].time - previous;
    EventIndex last = i;
    bool call = false;
    while (next_call < rt.mpi_calls.size() && rt.mpi_calls[next_call].enter < i) ++next_call;
    if (events[i].kind == EventKind::Enter) {
      if (next_call < rt.mpi_calls.size() && rt.mpi_calls[next_call].enter == i) {
        last = rt.mpi_calls[next_call++].leave;
        call = true;
      }
    } else {
      call = is_communication(events[i].kind);  // a record outside any MPI region: a call of its own
    }
    if (call) {
      const CallShape shape = shape_of(rt, trace.defs, i, last);
      const bool local = shape.has_enter && !shape.communicates && !shape.init && !shape.finalize &&
                         trace.defs.regions[shape.region].kind == RegionKind::MpiOther;
      if (local) {
        computation += events[last].time - events[i].time;
      } else {
        if (computation > 0) out.compute(computation);
        computation = 0;
        ProgramCall c = program_call(trace, rt, shape, i, last, left);
        if (shape.has_enter) {
          c.overhead = costs.overhead_of_region[shape.region];
          if (costs.per_message_region[shape.region]) {  // the exports take the receives' part before, too
            const MessageOverhead m = message_overhead(shape, costs.send_overhead, costs.receive_overhead);
            c.overhead += m.before + m.after;
          }
          c.cost = costs.typical[rank][next_call - 1];
        }
        if (shape.init) c.init_wait = costs.init_wait[rank];
        out.call(c);
      }
      i = last;
    }
    previous = events[i].time;
  }
  if (computation > 0) out.compute(computation);
}

CollectiveAlgorithm schedule_algorithm(const CollectiveAlgorithms& algorithms, CollectiveOp op, ExportLeftOut& left) {
  const CollectiveAlgorithm a = algorithms.of(op);
  if (a != CollectiveAlgorithm::Analytic) return a;
  ++left.analytic_collectives;
  return CollectiveAlgorithms{}.of(op);
}

std::uint64_t wire_bytes(const ExportPlatform& platform, Rank receiver, std::uint64_t bytes) {
  if (platform.size_factors.empty() || receiver >= platform.rank_hosts.size()) return bytes;
  const auto host = platform.size_factors.find(platform.rank_hosts[receiver]);
  if (host == platform.size_factors.end()) return bytes;
  const auto factor = host->second.find(size_class(bytes));
  if (factor == host->second.end()) return bytes;
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * factor->second));
}

void count_beyond_mpi(const Trace& trace, ExportLeftOut& left) {
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& others = trace.defs.ranks[r].others;
    for (std::size_t l = 0; l < others.size(); ++l) {
      const std::uint64_t events = l < trace.ranks[r].others.size() ? trace.ranks[r].others[l].size() : 0;
      if (others[l].kind == LocationKind::AcceleratorStream) {
        ++left.stream_locations;
        left.stream_events += events;
      } else {
        ++left.thread_locations;
        left.thread_events += events;
      }
    }
    for (const auto& location : trace.ranks[r].rma_records) left.rma_records += location.size();
  }
}

}  // namespace wisp::replay_impl

namespace wisp {

std::vector<std::string> ExportLeftOut::names() const {
  std::vector<std::string> out;
  auto add = [&](std::uint64_t n, const std::string& what) {
    if (n > 0) out.push_back(fmt::format("{} {}", n, what));
  };
  add(unmatched_messages, "unmatched message side(s)");
  add(incomplete_collectives, "collective(s) not reached by every member");
  add(cancelled_requests, "cancelled request(s)");
  if (thread_locations > 0)
    out.push_back(
        fmt::format("{} thread(s) with {} event(s) (OpenMP/pthreads; their work stays in the master's computation)",
                    thread_locations, thread_events));
  if (stream_locations > 0)
    out.push_back(fmt::format("{} accelerator stream(s) with {} event(s)", stream_locations, stream_events));
  add(rma_records, "RMA record(s) (one-sided transfers, memory copies)");
  add(analytic_collectives, "collective(s) under the analytic algorithm (written with the family's default)");
  add(synchronous_sends,
      "synchronous send(s) (MPI_Ssend/MPI_Issend) up to the eager threshold, rendezvous in wisp, written as standard "
      "sends (the simulator decides by size)");
  return out;
}

}  // namespace wisp
