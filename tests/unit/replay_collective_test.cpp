// Collective algorithms on 4 ranks with hand-computed exit times. Platform: L = 10 us, 1 ns per
// byte, no overhead, eager up to 100000 bytes unless said otherwise: a message of s bytes takes
// 10 + s/1000 us and an eager sender does not wait. Ranks enter at 1000 us (or staggered at
// 1000, 1100, 1200, 1300 us); the traced collectives last 50 us.
#include <catch2/catch.hpp>

#include "tiny_trace.hpp"
#include "wisp/error.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;
using namespace wisp::test;

namespace {

const std::vector<double> kTogether{1000, 1000, 1000, 1000};
const std::vector<double> kStaggered{1000, 1100, 1200, 1300};

Trace collective_trace(const std::string& function, CollectiveOp op, std::uint64_t buffer, Rank root,
                       const std::vector<double>& enter) {
  TinyTrace t(4);
  for (Rank r = 0; r < 4; ++r) {
    if (enter[r] > 0) t.work(r, "before", 0, enter[r]);
    t.collective(r, function, op, t.world(), enter[r], enter[r] + 50, buffer, root);
  }
  return t.finish(2000);
}

std::vector<double> exits(const std::string& function, CollectiveOp op, std::uint64_t buffer, Rank root,
                          const std::vector<double>& enter, const std::string& algorithm,
                          std::uint64_t eager = 100000) {
  ReplayOptions o;
  o.algorithms = parse_collective_algorithms(algorithm);
  const ReplayResult r = replay(collective_trace(function, op, buffer, root, enter), tiny_platform(4, 0, eager), o);
  std::vector<double> out;
  for (Rank k = 0; k < 4; ++k) out.push_back(call_leave(r.trace, k, 0));
  return out;
}

void check(const std::vector<double>& got, const std::vector<double>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("rank " << i);
    CHECK(got[i] == Approx(expected[i]).margin(1e-6));
  }
}

}  // namespace

TEST_CASE("barrier: dissemination and binomial", "[replay][collective]") {
  // Dissemination, staggered. Round 1 (i -> i+1): 0 waits for 3's message (1310); 1, 2, 3 have
  // theirs (1010, 1110, 1210) before entering. Round 2 (i -> i+2): 0: 2's (1210); 1: 3's (1310);
  // 2: 0's (1320); 3: 1's (1110).
  check(exits("MPI_Barrier", CollectiveOp::Barrier, 0, kNone, kStaggered, "barrier=dissemination"),
        {1310, 1310, 1320, 1300});
  // Together: two rounds of L each. Staggered by 5 us (< L), so receives are posted while the
  // empty messages travel. Round 1: 0: 3's (sent 1005, arrives 1015); 1: 0's (1010); 2: 1's
  // (1015); 3: 2's (1010). Round 2: 0: 2's (sent 1015, 1025); 1: 3's (1020); 2: 0's (1025); 3:
  // 1's (1020).
  check(exits("MPI_Barrier", CollectiveOp::Barrier, 0, kNone, kTogether, "barrier=dissemination"),
        {1020, 1020, 1020, 1020});
  check(exits("MPI_Barrier", CollectiveOp::Barrier, 0, kNone, {1000, 1005, 1000, 1005}, "barrier=dissemination"),
        {1025, 1020, 1025, 1020});
  // Binomial: reduce to 0 (1->0 arrives 1110, 3->2 1310, 2->0 1320), bcast (0->2, 0->1 at 1330,
  // 2->3 at 1340).
  check(exits("MPI_Barrier", CollectiveOp::Barrier, 0, kNone, kStaggered, "barrier=binomial"),
        {1320, 1330, 1330, 1340});
}

TEST_CASE("bcast: binomial, linear, ring, rendezvous", "[replay][collective]") {
  check(exits("MPI_Bcast", CollectiveOp::Bcast, 1000, 0, kTogether, "bcast=binomial"), {1000, 1011, 1011, 1022});
  check(exits("MPI_Bcast", CollectiveOp::Bcast, 1000, 0, kTogether, "bcast=linear"), {1000, 1011, 1011, 1011});
  check(exits("MPI_Bcast", CollectiveOp::Bcast, 1000, 0, kTogether, "bcast=ring"), {1000, 1011, 1022, 1033});
  // Root 2: relative ranks are rotated (2 -> 0, 3, then 0 -> 1).
  check(exits("MPI_Bcast", CollectiveOp::Bcast, 1000, 2, kTogether, "bcast=binomial"), {1011, 1022, 1000, 1011});
  // Rendezvous (eager limit 500): the root waits for its transfers.
  check(exits("MPI_Bcast", CollectiveOp::Bcast, 1000, 0, kTogether, "bcast=binomial", 500), {1011, 1011, 1022, 1022});
}

TEST_CASE("reduce, gather and scatter: binomial and linear", "[replay][collective]") {
  check(exits("MPI_Reduce", CollectiveOp::Reduce, 1000, 0, kTogether, "reduce=binomial"), {1022, 1000, 1011, 1000});
  check(exits("MPI_Reduce", CollectiveOp::Reduce, 1000, 0, kTogether, "reduce=linear"), {1011, 1000, 1000, 1000});
  // Gather binomial: 2 forwards 3's block with its own (2000 B, 12 us) after 1011.
  check(exits("MPI_Gather", CollectiveOp::Gather, 1000, 0, kTogether, "gather=binomial"), {1023, 1000, 1011, 1000});
  check(exits("MPI_Gather", CollectiveOp::Gather, 1000, 0, kTogether, "gather=linear"), {1011, 1000, 1000, 1000});
  // Scatter binomial: the root sends 2000 B to 2 and 1000 B to 1; 2 forwards 1000 B to 3.
  check(exits("MPI_Scatter", CollectiveOp::Scatter, 1000, 0, kTogether, "scatter=binomial"), {1000, 1011, 1012, 1023});
  check(exits("MPI_Scatter", CollectiveOp::Scatter, 1000, 0, kTogether, "scatter=linear"), {1000, 1011, 1011, 1011});
}

TEST_CASE("allreduce: recursive doubling, ring, binomial", "[replay][collective]") {
  // Staggered recursive doubling: round 1 pairs (0,1) (2,3): 1111, 1100, 1311, 1300; round 2
  // pairs (0,2) (1,3): 0 gets 2's at 1322, 1 gets 3's at 1311, 2 and 3 have theirs.
  check(exits("MPI_Allreduce", CollectiveOp::Allreduce, 1000, kNone, kStaggered, "allreduce=recursive_doubling"),
        {1322, 1311, 1311, 1300});
  // Ring: 2(n-1) = 6 steps of b/n = 1000 B.
  check(exits("MPI_Allreduce", CollectiveOp::Allreduce, 4000, kNone, kTogether, "allreduce=ring"),
        {1066, 1066, 1066, 1066});
  // Binomial reduce to 0 (1022) then binomial bcast (0 -> 2, 1 at 1033; 2 -> 3 at 1044).
  check(exits("MPI_Allreduce", CollectiveOp::Allreduce, 1000, kNone, kTogether, "allreduce=binomial"),
        {1022, 1033, 1033, 1044});
}

TEST_CASE("allgather, alltoall, reduce_scatter and scan algorithms", "[replay][collective]") {
  check(exits("MPI_Allgather", CollectiveOp::Allgather, 1000, kNone, kTogether, "allgather=ring"),
        {1033, 1033, 1033, 1033});
  // Recursive doubling: 1000 B then 2000 B.
  check(exits("MPI_Allgather", CollectiveOp::Allgather, 1000, kNone, kTogether, "allgather=recursive_doubling"),
        {1023, 1023, 1023, 1023});
  // Gather to 0 (1023), bcast of 4000 B (14 us per hop).
  check(exits("MPI_Allgather", CollectiveOp::Allgather, 1000, kNone, kTogether, "allgather=binomial"),
        {1023, 1037, 1037, 1051});
  check(exits("MPI_Alltoall", CollectiveOp::Alltoall, 1000, kNone, kTogether, "alltoall=pairwise"),
        {1033, 1033, 1033, 1033});
  check(exits("MPI_Alltoall", CollectiveOp::Alltoall, 1000, kNone, kTogether, "alltoall=linear"),
        {1011, 1011, 1011, 1011});
  check(exits("MPI_Reduce_scatter", CollectiveOp::ReduceScatter, 1000, kNone, kTogether, "reduce_scatter=ring"),
        {1033, 1033, 1033, 1033});
  // Binomial: reduce 4000 B to 0 (1014, 1028), scatter 2000 B to 2 and 1000 B to 1, 2 -> 3.
  check(exits("MPI_Reduce_scatter", CollectiveOp::ReduceScatter, 1000, kNone, kTogether, "reduce_scatter=binomial"),
        {1028, 1039, 1040, 1051});
  check(exits("MPI_Scan", CollectiveOp::Scan, 1000, kNone, kTogether, "scan=linear"), {1000, 1011, 1022, 1033});
  check(exits("MPI_Exscan", CollectiveOp::Exscan, 1000, kNone, kTogether, "scan=recursive_doubling"),
        {1000, 1011, 1011, 1022});
}

TEST_CASE("analytic collectives follow the model's class rules", "[replay][collective]") {
  // C = ceil(log2 4) (L + b/B) = 2 x 11 us with b = 1000; 2 x 10 us for a barrier.
  check(exits("MPI_Barrier", CollectiveOp::Barrier, 0, kNone, kStaggered, "analytic"), {1320, 1320, 1320, 1320});
  check(exits("MPI_Allreduce", CollectiveOp::Allreduce, 1000, kNone, kStaggered, "analytic"), {1322, 1322, 1322, 1322});
  // 1->N, root 1 (ready 1100): root at 1100 + C, others at max(own, 1100) + C.
  check(exits("MPI_Bcast", CollectiveOp::Bcast, 1000, 1, kStaggered, "analytic"), {1122, 1122, 1222, 1322});
  // N->1, root 2: root at max(all) + C, others at own + C.
  check(exits("MPI_Reduce", CollectiveOp::Reduce, 1000, 2, kStaggered, "analytic"), {1022, 1122, 1322, 1322});
  // Prefix: member i at max(ready of 0..i) + C.
  check(exits("MPI_Scan", CollectiveOp::Scan, 1000, kNone, {1000, 1300, 1100, 1200}, "analytic"),
        {1022, 1322, 1322, 1322});
}

TEST_CASE("gatherv uses every member's own block size", "[replay][collective]") {
  TinyTrace t(4);
  const std::uint64_t blocks[4] = {0, 1000, 3000, 5000};
  for (Rank r = 0; r < 4; ++r)
    t.call(r, "MPI_Gatherv", 1000, 1050, [&](RankBuilder& b) {
      b.collective_begin(us(1000));
      b.collective_end(us(1050), CollectiveOp::Gatherv, t.world(), 0, blocks[r], r == 0 ? 9000 : 0);
    });
  ReplayOptions o;
  o.algorithms = parse_collective_algorithms("gather=linear");
  const ReplayResult r = replay(t.finish(2000), tiny_platform(4, 0, 100000), o);
  CHECK(call_leave(r.trace, 0, 0) == Approx(1015));  // the 5000-byte block: 10 + 5 us
  CHECK(call_leave(r.trace, 3, 0) == Approx(1000));
}

TEST_CASE("collectives on a sub-communicator involve only its members", "[replay][collective]") {
  for (const char* algorithm : {"allreduce=recursive_doubling", "analytic"}) {
    TinyTrace t(4, {{1, 3}});
    t.work(0, "solve", 0, 1500);
    t.work(2, "solve", 0, 1500);
    t.work(1, "before", 0, 1100);
    t.work(3, "before", 0, 1300);
    t.collective(1, "MPI_Allreduce", CollectiveOp::Allreduce, t.sub(0), 1100, 1150, 1000);
    t.collective(3, "MPI_Allreduce", CollectiveOp::Allreduce, t.sub(0), 1300, 1350, 1000);
    ReplayOptions o;
    o.algorithms = parse_collective_algorithms(algorithm);
    const ReplayResult r = replay(t.finish(2000), tiny_platform(4, 0, 100000), o);
    INFO(algorithm);
    // Exchange between 1 and 3: 1 gets 3's data at 1311, 3 has 1's (1111). Analytic: both at
    // max(1100, 1300) + 1 x 11.
    const bool analytic = std::string(algorithm) == "analytic";
    CHECK(call_leave(r.trace, 1, 0) == Approx(1311));
    CHECK(call_leave(r.trace, 3, 0) == Approx(analytic ? 1311 : 1300));
    CHECK(r.trace.collectives.size() == 1);
  }
}

TEST_CASE("MPI_Init leaves as traced; MPI_Finalize synchronises", "[replay][collective]") {
  TinyTrace t(2);
  t.call(0, "MPI_Init", 100, 10000);
  t.call(1, "MPI_Init", 300, 10002);
  t.call(0, "MPI_Finalize", 11000, 11100);
  t.call(1, "MPI_Finalize", 11500, 11600);
  const Trace in = t.finish(12000);
  // Overhead 1 us: ready 101 and 301; rank r leaves at 301 + (leave_r - 300 - 1) = leave_r.
  const ReplayResult r = replay(in, tiny_platform(2, 1, 1000));
  CHECK(call_leave(r.trace, 0, 0) == Approx(10000));
  CHECK(call_leave(r.trace, 1, 0) == Approx(10002));
  // Finalize (no records, Score-P 7): a dissemination barrier. Ready 11001 and 11501 (11002 +
  // 1498 of traced work + 1); 0 gets 1's message at 11511, 1 has 0's (11011).
  CHECK(call_leave(r.trace, 0, 1) == Approx(11511));
  CHECK(call_leave(r.trace, 1, 1) == Approx(11501));
  ReplayOptions o;
  o.init_time = us(5000);
  const ReplayResult fixed = replay(in, tiny_platform(2, 1, 1000), o);
  CHECK(call_leave(fixed.trace, 0, 0) == Approx(5301));
  CHECK(call_leave(fixed.trace, 1, 0) == Approx(5301));
}

TEST_CASE("MPI_Init synchronises only the ranks that call it", "[replay][collective]") {
  TinyTrace t(3);
  t.call(1, "MPI_Init", 100, 5000);
  t.call(2, "MPI_Init", 200, 5000);
  t.work(0, "solve", 0, 3000);  // rank 0's trace starts after its MPI_Init (not recorded)
  const ReplayResult r = replay(t.finish(6000), tiny_platform(3, 0, 1000));
  CHECK(call_leave(r.trace, 1, 0) == Approx(5000));
  CHECK(call_leave(r.trace, 2, 0) == Approx(5000));
  CHECK(end_of(r.trace, 0) == Approx(6000));
}

TEST_CASE("collective algorithm names are checked", "[replay][collective]") {
  CHECK_THROWS_WITH(parse_collective_algorithms("bcast=pairwise"), Catch::Contains("bcast has no pairwise"));
  CHECK_THROWS_WITH(parse_collective_algorithms("allreduce=fast"), Catch::Contains("unknown algorithm 'fast'"));
  // A bare algorithm applies to every family that has it; the others keep theirs.
  const CollectiveAlgorithms ring = parse_collective_algorithms("ring");
  CHECK(ring.of(CollectiveOp::Allreduce) == CollectiveAlgorithm::Ring);
  CHECK(ring.of(CollectiveOp::Bcast) == CollectiveAlgorithm::Ring);
  CHECK(ring.of(CollectiveOp::Barrier) == CollectiveAlgorithm::Dissemination);
  CHECK_THROWS_WITH(parse_collective_algorithms("allredcue=ring"), Catch::Contains("unknown collective"));
  const auto a = parse_collective_algorithms("analytic,allreduce=ring");
  CHECK(a.of(CollectiveOp::Allreduce) == CollectiveAlgorithm::Ring);
  CHECK(a.of(CollectiveOp::Gatherv) == CollectiveAlgorithm::Analytic);
  CHECK(CollectiveAlgorithms{}.of(CollectiveOp::Barrier) == CollectiveAlgorithm::Dissemination);
}
