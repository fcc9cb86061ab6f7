// What one MPI call's events say about it before it is replayed or exported: which call it is,
// whether it communicates, completes requests, holds a collective or an unmatched message.
// Shared by the rank actor and the exporters (mpi_program.cpp), so both read a call alike.
#pragma once

#include "wisp/trace/trace.hpp"

namespace wisp::replay_impl {

inline bool is_communication(EventKind k) { return k >= EventKind::MpiSend && k <= EventKind::MpiCollectiveEnd; }

// A call's shape.
struct CallShape {
  bool has_enter = false;
  RegionId region = kNone;
  bool init = false, finalize = false;
  bool communicates = false, has_collective = false, completes = false, unmatched = false;
  std::uint64_t operations = 0;  // sends, receives, collectives
  // Messages the call sends and receives, as per-message overheads count them (platform.hpp): a
  // send or Isend sends one, a receive or completed Irecv receives one, a collective sends and
  // receives one per round of ceil(log2 n).
  std::uint32_t sends = 0, receives = 0;
};

// The per-message overhead of a call of that shape, before (its sends) and after (its receives)
// its communication [s].
struct MessageOverhead {
  double before = 0, after = 0;
};

inline CallShape shape_of(const RankTrace& rt, const Definitions& defs, EventIndex first, EventIndex last) {
  const auto& events = rt.events;
  CallShape c;
  c.has_enter = events[first].kind == EventKind::Enter;
  c.region = c.has_enter ? defs.callpaths[events[first].callpath()].region : kNone;
  const MpiFunction f = c.has_enter ? defs.regions[c.region].mpi : MpiFunction::None;
  c.init = f == MpiFunction::Init || f == MpiFunction::InitThread;
  c.finalize = f == MpiFunction::Finalize;
  for (EventIndex k = first; k <= last; ++k) {
    const EventKind kind = events[k].kind;
    c.communicates |= is_communication(kind);
    c.unmatched |= (kind == EventKind::MpiSend || kind == EventKind::MpiIsend || kind == EventKind::MpiRecv ||
                    kind == EventKind::MpiIrecv) &&
                   rt.p2p[events[k].p2p()].message == kNone;
    c.has_collective |= kind == EventKind::MpiCollectiveEnd;
    c.completes |= kind == EventKind::MpiIsendComplete || kind == EventKind::MpiIrecv;
    c.operations += kind == EventKind::MpiSend || kind == EventKind::MpiIsend || kind == EventKind::MpiRecv ||
                    kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiCollectiveEnd;
    c.sends += kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
    c.receives += kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv;
    if (kind == EventKind::MpiCollectiveEnd) {
      const CollectiveRecord& r = rt.collectives[events[k].collective()];
      const std::uint32_t rounds = r.comm < defs.comms.size() ? ceil_log2(defs.comms[r.comm].size()) : 0;
      c.sends += rounds, c.receives += rounds;
    }
  }
  return c;
}

inline MessageOverhead message_overhead(const CallShape& c, double send_overhead, double receive_overhead) {
  return MessageOverhead{c.sends * send_overhead, c.receives * receive_overhead};
}

}  // namespace wisp::replay_impl
