// The trace model: builder (call paths, requests, anomalies), message matching, collective
// instances, MPI call spans, rank sets. Hand-built traces with hand-known answers.
#include <catch2/catch.hpp>

#include "wisp/error.hpp"
#include "wisp/trace/builder.hpp"
#include "wisp/trace/rank_set.hpp"

using namespace wisp;

namespace {

Definitions two_rank_defs() {
  Definitions d;
  d.ranks.resize(2);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
  d.add_comm(Communicator{"MPI_COMM_SELF", {}, true, kNone});
  for (const char* name :
       {"main", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Barrier", "solve"})
    d.add_region(make_region(name));
  return d;
}

RegionId rid(const Definitions& d, const char* name) { return *d.find_region(name); }

}  // namespace

TEST_CASE("events stay 16 bytes and regions are classified by MPI name") {
  STATIC_REQUIRE(sizeof(Event) == 16);
  CHECK(make_region("MPI_Send").kind == RegionKind::MpiPointToPoint);
  CHECK(make_region("MPI_Waitall").mpi == MpiFunction::Waitall);
  CHECK(make_region("MPI_Allreduce").kind == RegionKind::MpiCollective);
  CHECK(make_region("MPI_Ibarrier").kind == RegionKind::MpiCollective);
  CHECK(make_region("MPI_Init").kind == RegionKind::MpiInitFinalize);
  CHECK(make_region("MPI_Comm_rank").kind == RegionKind::MpiOther);
  CHECK(make_region("void foo<int, 2>(std::pair<int, int>)").kind == RegionKind::User);
  CHECK(make_region("main").mpi == MpiFunction::None);
}

TEST_CASE("clock conversion is exact both ways") {
  const Clock c{2095197216, 7397466976977800, 0};
  const std::uint64_t tick = 7397467382750926;
  const double s = c.to_seconds(tick);
  CHECK(s == Approx((tick - 7397466976977800.0) / 2095197216.0).epsilon(1e-15));
  CHECK(c.to_ticks(s) == tick);
  CHECK(c.snap(c.snap(0.123456789123)) == c.snap(0.123456789123));
  CHECK(c.to_seconds(c.global_offset - 2095) < 0);  // events before the offset stay negative
}

TEST_CASE("builder makes call paths from nesting and shares them across ranks") {
  Definitions d = two_rank_defs();
  TraceBuilder b(d);
  for (Rank r = 0; r < 2; ++r) {
    auto& rb = b.rank(r);
    rb.enter(0.0, rid(d, "main"));
    rb.enter(1.0, rid(d, "solve"));
    rb.enter(2.0, rid(d, "MPI_Barrier"));
    rb.leave(3.0, rid(d, "MPI_Barrier"));
    rb.leave(4.0, rid(d, "solve"));
    rb.enter(5.0, rid(d, "MPI_Barrier"));
    rb.leave(6.0, rid(d, "MPI_Barrier"));
    rb.leave(7.0, rid(d, "main"));
  }
  const Trace t = b.finish();
  REQUIRE(t.defs.callpaths.size() == 4);  // main, main/solve, main/solve/MPI_Barrier, main/MPI_Barrier
  const auto& ev = t.ranks[1].events;
  CHECK(t.defs.callpath_name(ev[2].ref) == "main/solve/MPI_Barrier");
  CHECK(t.defs.callpath_name(ev[5].ref) == "main/MPI_Barrier");
  CHECK(ev[2].ref == t.ranks[0].events[2].ref);
  CHECK(t.defs.callpaths[ev[2].ref].depth == 2);
  REQUIRE(t.ranks[0].mpi_calls.size() == 2);
  CHECK(t.ranks[0].mpi_calls[0].enter == 2);
  CHECK(t.ranks[0].mpi_calls[0].leave == 3);
  CHECK(t.ranks[0].mpi_calls[1].enter == 5);
  CHECK(t.anomalies.total() == 0);
}

TEST_CASE("messages match FIFO per (comm, source, dest, tag), receives in posting order") {
  Definitions d = two_rank_defs();
  const CommId w = d.world;
  TraceBuilder b(d);
  auto& s = b.rank(0);
  s.send(1.0, 1, w, 5, 100);  // A: tag 5
  s.send(2.0, 1, w, 7, 200);  // B: tag 7
  s.send(3.0, 1, w, 5, 300);  // C: tag 5
  auto& r = b.rank(1);
  // Posts for tag 5 (#1), tag 5 (#2), tag 7 (#3); completions in another order.
  r.irecv_request(1.5, 11);
  r.irecv_request(1.6, 12);
  r.irecv_request(1.7, 13);
  r.irecv(4.0, 0, w, 5, 300, 12);  // second tag-5 post gets C
  r.irecv(4.1, 0, w, 7, 200, 13);
  r.irecv(4.2, 0, w, 5, 100, 11);  // first tag-5 post gets A
  const Trace t = b.finish();
  REQUIRE(t.messages.size() == 3);
  CHECK(t.anomalies.total() == 0);
  for (const Message& m : t.messages) CHECK(t.send_of(m).bytes == t.recv_of(m).bytes);
  // The Irecv completion events point at the records created by their posts.
  const auto& rt = t.ranks[1];
  CHECK(rt.p2p[rt.events[3].ref].request == 12);
  CHECK(rt.p2p[rt.events[3].ref].request_event == 1);
}

TEST_CASE("unmatched messages and receives before their send are reported, not fatal") {
  Definitions d = two_rank_defs();
  TraceBuilder b(d);
  b.rank(0).send(5.0, 1, d.world, 1, 8);  // received "before" it is sent: clock skew
  b.rank(0).send(6.0, 1, d.world, 2, 8);  // never received
  b.rank(1).recv(4.999999, 0, d.world, 1, 8);
  b.rank(1).recv(7.0, 0, d.world, 3, 8);  // never sent
  const Trace t = b.finish();
  CHECK(t.messages.size() == 1);
  CHECK(t.anomalies[AnomalyKind::ReceiveBeforeSend].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnmatchedSend].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnmatchedReceive].count == 1);
  CHECK_THAT(t.anomalies[AnomalyKind::ReceiveBeforeSend].examples[0], Catch::Contains("1.000 us before its send"));
  CHECK_THAT(t.anomalies[AnomalyKind::UnmatchedSend].examples[0], Catch::Contains("tag 2"));
}

TEST_CASE("collective instances: n-th operation per communicator, incomplete ones reported") {
  Definitions d = two_rank_defs();
  TraceBuilder b(d);
  for (Rank r = 0; r < 2; ++r) {
    b.rank(r).collective_begin(1.0 + r);
    b.rank(r).collective_end(3.0, CollectiveOp::Allreduce, d.world, kNone, 16, 16);
  }
  b.rank(0).collective_begin(4.0);  // rank 1 never reaches the second barrier
  b.rank(0).collective_end(5.0, CollectiveOp::Barrier, d.world, kNone, 0, 0);
  b.rank(1).collective_begin(4.0);  // a self-comm collective is its own instance
  b.rank(1).collective_end(4.5, CollectiveOp::CreateHandle, 1, kNone, 0, 0);
  const Trace t = b.finish();
  REQUIRE(t.collectives.size() == 3);
  const auto& first = t.collectives[0];
  CHECK(first.complete);
  CHECK(first.count == 2);
  CHECK(first.op == CollectiveOp::Allreduce);
  CHECK(t.members(first)[1].rank == 1);
  CHECK_FALSE(t.collectives[1].complete);
  CHECK(t.collectives[1].count == 1);
  CHECK(t.collectives[2].complete);
  CHECK(t.anomalies[AnomalyKind::IncompleteCollective].count == 1);
  CHECK(t.ranks[0].collectives[0].instance == 0);
  CHECK(t.ranks[1].collectives[1].instance == 2);
}

TEST_CASE("non-monotonic times are clamped, open regions closed, bad leaves ignored") {
  Definitions d = two_rank_defs();
  TraceBuilder b(d);
  auto& r = b.rank(0);
  r.enter(1.0, rid(d, "main"));
  r.enter(2.0, rid(d, "solve"));
  r.leave(1.5, rid(d, "solve"));        // goes back in time
  r.leave(3.0, rid(d, "MPI_Send"));     // not open
  r.enter(4.0, rid(d, "MPI_Barrier"));  // never left
  const Trace t = b.finish();
  const auto& ev = t.ranks[0].events;
  CHECK(ev[2].time == 2.0);
  CHECK(t.anomalies[AnomalyKind::NonMonotonicTime].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnmatchedLeave].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnclosedRegion].count == 1);
  REQUIRE(ev.size() == 6);  // main, solve, /solve, barrier, + 2 synthesised leaves
  CHECK(ev[4].kind == EventKind::Leave);
  CHECK(ev[5].time == 4.0);
}

TEST_CASE("requests: completion of an unknown request and requests never completed") {
  Definitions d = two_rank_defs();
  TraceBuilder b(d);
  b.rank(0).isend(1.0, 1, d.world, 0, 10, 77);
  b.rank(0).isend_complete(2.0, 78);  // wrong id
  b.rank(1).irecv_request(1.0, 5);
  b.rank(1).request_cancelled(2.0, 5);
  const Trace t = b.finish();
  CHECK(t.anomalies[AnomalyKind::UnknownRequest].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnfinishedRequest].count == 1);  // request 77
  CHECK(t.anomalies[AnomalyKind::UnmatchedSend].count == 1);
}

TEST_CASE("Score-P collective byte convention round-trips the buffer size") {
  for (CollectiveOp op : {CollectiveOp::Allreduce, CollectiveOp::Bcast, CollectiveOp::Reduce, CollectiveOp::Alltoall,
                          CollectiveOp::Scan, CollectiveOp::Gather}) {
    for (bool root : {false, true}) {
      const auto bytes = collective_bytes(op, 96, 12, root);
      CHECK(collective_buffer(op, bytes.sent, bytes.received, 12, root) == 96);
    }
  }
  CHECK(collective_bytes(CollectiveOp::Allreduce, 8, 4, false).sent == 32);
  CHECK(collective_bytes(CollectiveOp::Barrier, 8, 4, false).received == 0);
}

TEST_CASE("rank sets parse lists and ranges and reject what cannot exist") {
  CHECK(parse_rank_set("0-3,7", 8) == std::vector<Rank>{0, 1, 2, 3, 7});
  CHECK(parse_rank_set(" 5, 1-2 ,2", 8) == std::vector<Rank>{1, 2, 5});
  CHECK(format_rank_set({0, 1, 2, 3, 7, 9, 10}) == "0-3,7,9-10");
  CHECK_THROWS_WITH(parse_rank_set("0-8", 8), Catch::Contains("rank 8 does not exist"));
  CHECK_THROWS_WITH(parse_rank_set("5-2", 8), Catch::Contains("reversed"));
  CHECK_THROWS_WITH(parse_rank_set("1,x", 8), Catch::Contains("'x' is not a rank"));
  CHECK_THROWS_AS(parse_rank_set("", 8), Error);
}
