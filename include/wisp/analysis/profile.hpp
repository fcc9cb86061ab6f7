// The call-path profile of a trace: exclusive time and visits per (call path, rank), the way
// Scalasca's `time` and `visits` metrics count them. Time between two consecutive Enter/Leave
// (or ProgramBegin/ProgramEnd) events belongs to the call path in effect between them; time
// outside every region belongs to the program root (slot 0), which each rank visits once.
#pragma once

#include <array>
#include <string_view>

#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// Scalasca's MPI message statistics (Message.pattern), counted where scout counts them: a send or
// receive record at its call path, as a synchronisation if its message carries no data and as a
// communication (and its bytes) if it does; a collective at its end record, by whether this rank
// sent, received, both or neither.
enum class MessageStat : std::uint8_t {
  SyncsSend,
  SyncsRecv,
  SyncsColl,
  CommsSend,
  CommsRecv,
  CommsCxch,
  CommsCsrc,
  CommsCdst,
  BytesSent,
  BytesRcvd,
  BytesCout,
  BytesCin,
};
inline constexpr int kMessageStatCount = 12;
std::string_view message_stat_metric(MessageStat s);  // "syncs_send", ... (metric_catalogue.hpp)

struct Profile {
  CallpathMatrix time;                                     // seconds, call-path exclusive
  CallpathMatrix visits;                                   // Enter events (program root: 1 per rank with events)
  std::array<CallpathMatrix, kMessageStatCount> messages;  // by MessageStat: occurrences or bytes
};

Profile compute_profile(const Trace& trace);

// The call path in effect right after event `e` given the one before it: Enter opens its call
// path, Leave returns to the parent, every other event leaves it unchanged.
inline CallpathId callpath_after(const Definitions& defs, const Event& e, CallpathId before) {
  if (e.kind == EventKind::Enter) return e.callpath();
  if (e.kind == EventKind::Leave) return defs.callpaths[e.callpath()].parent;
  return before;
}

// Enter, Leave, ProgramBegin and ProgramEnd move the time stamp that the profile and the time
// maps of the critical-path and delay analyses account from.
inline bool is_time_stamp(EventKind k) {
  return k == EventKind::Enter || k == EventKind::Leave || k == EventKind::ProgramBegin || k == EventKind::ProgramEnd;
}

}  // namespace wisp
