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

// Every field of the definitions, one check each (so that a failure names the field).
inline void require_same_definitions(const Definitions& a, const Definitions& b) {
  CHECK(a.clock == b.clock);
  CHECK(a.program_name == b.program_name);
  CHECK(a.program_arguments == b.program_arguments);
  CHECK(a.creator == b.creator);
  CHECK(a.ranks == b.ranks);
  CHECK(a.paradigms == b.paradigms);
  CHECK(a.regions == b.regions);
  CHECK(a.callpaths == b.callpaths);
  CHECK(a.comms == b.comms);
  CHECK(a.world == b.world);
  CHECK(a.thread_teams == b.thread_teams);
  CHECK(a.location_comms == b.location_comms);
  CHECK(a.cart_dimensions == b.cart_dimensions);
  CHECK(a.cart_topologies == b.cart_topologies);
  CHECK(a.cart_coordinates == b.cart_coordinates);
  CHECK(a.metric_members == b.metric_members);
  CHECK(a.metric_classes == b.metric_classes);
  CHECK(a.metric_recorders == b.metric_recorders);
  CHECK(a.rma_windows == b.rma_windows);
  CHECK(a.attributes == b.attributes);
  CHECK(a.attribute_strings == b.attribute_strings);
  CHECK(a == b);  // and whatever field a later change adds
}

// One process's share of a spread trace against the whole trace: its ranks' events and records
// as the whole has them (the other locations', counters' and attributes' too), nothing of the
// other ranks, the same definitions, derived tables and anomalies, and the messages with a side on
// its ranks, numbered as in the whole trace.
inline void require_share_of(const Trace& part, const Trace& whole) {
  REQUIRE(part.share.has_value());
  REQUIRE(part.rank_count() == whole.rank_count());
  require_same_definitions(part.defs, whole.defs);
  require_same_derived_but_messages(part, whole);
  std::size_t k = 0;
  for (std::uint32_t m = 0; m < whole.messages.size(); ++m) {
    const Message& x = whole.messages[m];
    if (!part.holds(x.sender) && !part.holds(x.receiver)) continue;
    REQUIRE(k < part.messages.size());
    REQUIRE(part.message_id(k) == m);
    require_same_message(part.messages[k++], x);
  }
  REQUIRE(k == part.messages.size());
  for (Rank r = 0; r < whole.rank_count(); ++r) {
    const RankTrace& a = part.ranks[r];
    const RankTrace& b = whole.ranks[r];
    if (!part.holds(r)) {
      REQUIRE((a.events.empty() && a.p2p.empty() && a.collectives.empty() && a.others.empty()));
      continue;
    }
    require_same_events(a, b, r);
    require_same_records(a, b);
    CHECK(a.others == b.others);
    CHECK(a.thread_records == b.thread_records);
    CHECK(a.metrics == b.metrics);
    CHECK(a.other_metrics == b.other_metrics);
    CHECK(a.rma_records == b.rma_records);
    CHECK(a.attributes == b.attributes);
  }
}

}  // namespace wisp::test
