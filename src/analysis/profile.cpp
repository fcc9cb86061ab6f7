// Call-path profile: one forward pass per rank. See profile.hpp.
#include "wisp/analysis/profile.hpp"

namespace wisp {

namespace {

constexpr std::string_view kMessageStatMetrics[kMessageStatCount] = {
    "syncs_send", "syncs_recv", "syncs_coll", "comms_send", "comms_recv", "comms_cxch",
    "comms_csrc", "comms_cdst", "bytes_sent", "bytes_rcvd", "bytes_cout", "bytes_cin"};

// Scout's GROUP_SEND, POST_RECV and MPI_COLLECTIVE_END callbacks of Message.pattern for one record.
void count_message(Profile& p, const RankTrace& rank, const Event& e, std::uint32_t slot, Rank r) {
  const auto add = [&](MessageStat s, double v) { p.messages[static_cast<int>(s)].at(slot, r) += v; };
  using enum MessageStat;
  if (e.kind == EventKind::MpiCollectiveEnd) {
    const CollectiveRecord& c = rank.collectives[e.collective()];
    // Communicator and window handles (MPI_Init's, MPI_Comm_dup's, ...) are not among the 17
    // operations Scalasca's PEARL reads as collectives (Otf2TypeHelpers.cpp).
    if (c.op >= CollectiveOp::CreateHandle) return;
    add(c.sent && c.received ? CommsCxch : c.sent ? CommsCsrc : c.received ? CommsCdst : SyncsColl, 1);
    add(BytesCout, static_cast<double>(c.sent));
    add(BytesCin, static_cast<double>(c.received));
    return;
  }
  const P2P& m = rank.p2p[e.p2p()];
  const bool send = e.kind == EventKind::MpiSend || e.kind == EventKind::MpiIsend;
  add(m.bytes == 0 ? (send ? SyncsSend : SyncsRecv) : (send ? CommsSend : CommsRecv), 1);
  add(send ? BytesSent : BytesRcvd, static_cast<double>(m.bytes));
}

bool is_message_record(EventKind k) {
  return k == EventKind::MpiSend || k == EventKind::MpiIsend || k == EventKind::MpiRecv || k == EventKind::MpiIrecv ||
         k == EventKind::MpiCollectiveEnd;
}

}  // namespace

std::string_view message_stat_metric(MessageStat s) { return kMessageStatMetrics[static_cast<int>(s)]; }

Profile compute_profile(const Trace& trace) {
  Profile p{CallpathMatrix(trace), CallpathMatrix(trace), {}};
  for (CallpathMatrix& m : p.messages) m = CallpathMatrix(trace);
  const Definitions& defs = trace.defs;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& events = trace.ranks[r].events;
    if (events.empty()) continue;
    double* time = p.time.row(r);
    double* visits = p.visits.row(r);
    visits[0] = 1;
    CallpathId current = kNone;
    double stamp = events.front().time;
    for (const Event& e : events) {
      if (!is_time_stamp(e.kind)) {
        if (is_message_record(e.kind)) count_message(p, trace.ranks[r], e, slot_of(current), r);
        continue;
      }
      time[slot_of(current)] += e.time - stamp;
      stamp = e.time;
      if (e.kind == EventKind::Enter) visits[slot_of(e.callpath())] += 1;
      current = callpath_after(defs, e, current);
    }
  }
  return p;
}

}  // namespace wisp
