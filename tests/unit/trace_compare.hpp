// Two traces compared field by field (events, records, call-path ids, matching, anomalies, skipped
// records), for the tests of reads that must give the very same trace (threads, processes).
#pragma once

#include <catch2/catch.hpp>

#include "wisp/trace/trace.hpp"

namespace wisp::test {

inline void require_same_events(const RankTrace& a, const RankTrace& b, Rank r) {
  REQUIRE(a.events.size() == b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    const Event& x = a.events[i];
    const Event& y = b.events[i];
    if (x.time != y.time || x.ref != y.ref || x.kind != y.kind) FAIL("rank " << r << " event " << i << " differs");
  }
}

inline void require_same_records(const RankTrace& a, const RankTrace& b) {
  REQUIRE(a.p2p.size() == b.p2p.size());
  for (std::size_t i = 0; i < a.p2p.size(); ++i) {
    const P2P& x = a.p2p[i];
    const P2P& y = b.p2p[i];
    REQUIRE((x.bytes == y.bytes && x.request == y.request && x.peer == y.peer && x.comm == y.comm && x.tag == y.tag &&
             x.event == y.event && x.request_event == y.request_event && x.message == y.message && x.kind == y.kind));
  }
  REQUIRE(a.collectives.size() == b.collectives.size());
  for (std::size_t i = 0; i < a.collectives.size(); ++i) {
    const CollectiveRecord& x = a.collectives[i];
    const CollectiveRecord& y = b.collectives[i];
    REQUIRE((x.sent == y.sent && x.received == y.received && x.comm == y.comm && x.root == y.root &&
             x.begin == y.begin && x.end == y.end && x.instance == y.instance && x.op == y.op));
  }
  REQUIRE(a.mpi_calls.size() == b.mpi_calls.size());
  for (std::size_t i = 0; i < a.mpi_calls.size(); ++i)
    REQUIRE((a.mpi_calls[i].enter == b.mpi_calls[i].enter && a.mpi_calls[i].leave == b.mpi_calls[i].leave));
  REQUIRE(a.others.size() == b.others.size());
  REQUIRE(a.thread_records.size() == b.thread_records.size());
  for (std::size_t l = 0; l < a.thread_records.size(); ++l)
    REQUIRE(a.thread_records[l].size() == b.thread_records[l].size());
}

inline void require_same_message(const Message& x, const Message& y) {
  REQUIRE((x.sender == y.sender && x.receiver == y.receiver && x.send == y.send && x.recv == y.recv));
}

// Collective instances, anomalies and skipped records.
inline void require_same_derived_but_messages(const Trace& a, const Trace& b) {
  REQUIRE(a.collectives.size() == b.collectives.size());
  for (std::size_t i = 0; i < a.collectives.size(); ++i)
    REQUIRE((a.collectives[i].comm == b.collectives[i].comm && a.collectives[i].first == b.collectives[i].first &&
             a.collectives[i].count == b.collectives[i].count &&
             a.collectives[i].complete == b.collectives[i].complete));
  REQUIRE(a.collective_members.size() == b.collective_members.size());
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    const auto kind = static_cast<AnomalyKind>(k);
    CHECK(a.anomalies[kind].count == b.anomalies[kind].count);
    CHECK(a.anomalies[kind].examples == b.anomalies[kind].examples);
  }
  CHECK(a.skipped_records == b.skipped_records);
}

inline void require_same_derived(const Trace& a, const Trace& b) {
  REQUIRE(a.messages.size() == b.messages.size());
  for (std::size_t i = 0; i < a.messages.size(); ++i) require_same_message(a.messages[i], b.messages[i]);
  require_same_derived_but_messages(a, b);
}

// The same trace, field by field: call-path ids included.
inline void require_identical(const Trace& a, const Trace& b) {
  REQUIRE(a.rank_count() == b.rank_count());
  CHECK(a.defs.program_name == b.defs.program_name);
  REQUIRE(a.defs.callpaths.size() == b.defs.callpaths.size());
  for (std::size_t i = 0; i < a.defs.callpaths.size(); ++i)
    REQUIRE((a.defs.callpaths[i].region == b.defs.callpaths[i].region &&
             a.defs.callpaths[i].parent == b.defs.callpaths[i].parent &&
             a.defs.callpaths[i].depth == b.defs.callpaths[i].depth));
  for (Rank r = 0; r < a.rank_count(); ++r) {
    require_same_events(a.ranks[r], b.ranks[r], r);
    require_same_records(a.ranks[r], b.ranks[r]);
  }
  require_same_derived(a, b);
}

}  // namespace wisp::test
