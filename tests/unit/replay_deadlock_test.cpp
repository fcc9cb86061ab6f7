// A replay that cannot finish ends with a report of every blocked rank, never a hang.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;
using namespace wisp::test;

TEST_CASE("a deadlock names every blocked rank, its MPI call and event", "[replay][deadlock]") {
  const Trace in = deadlocking_trace();
  try {
    replay(in, tiny_platform(3, 1, 1000));
    FAIL("the replay should deadlock");
  } catch (const ReplayDeadlock& e) {
    REQUIRE(e.blocked().size() == 3);
    CHECK(e.blocked()[0].rank == 0);
    CHECK(e.blocked()[0].call == "MPI_Recv");
    CHECK(e.blocked()[0].event == in.ranks[0].mpi_calls[0].enter);
    CHECK(e.blocked()[0].waiting_for == "message from rank 1 tag 7 on MPI_COMM_WORLD (4096 bytes)");
    CHECK(e.blocked()[1].waiting_for == "message from rank 0 tag 7 on MPI_COMM_WORLD (4096 bytes)");
    CHECK(e.blocked()[2].call == "MPI_Barrier");
    CHECK(e.time() == Approx(us(111)));  // the last activity: rank 2's barrier message (101 + 10)
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("3 rank(s) blocked"));
    CHECK_THAT(what, Catch::Contains("rank 2 in MPI_Barrier (event 2)"));
  }
}

TEST_CASE("wisp simulate reports a deadlock with a non-zero exit", "[replay][deadlock][cli]") {
  TempDir dir;
  write_otf2(deadlocking_trace(), dir / "in");
  const auto s = run_wisp("simulate " + (dir / "in").string() + " -o " + (dir / "out").string() + " --eager 1000");
  CHECK(s.exit_code == 1);
  CHECK_THAT(s.err, Catch::Contains("wisp: error: " + (dir / "in").string() + ": replay deadlocked"));
  CHECK_THAT(s.err, Catch::Contains("rank 0 in MPI_Recv (event 2) waiting for message from rank 1 tag 7"));
  CHECK(!std::filesystem::exists(dir / "out"));
}

// A rank runs ahead of SimGrid's clock through its computation and waits without sleeping first
// (src/replay/README.md): the deadlock's time is still the latest time a blocked rank reached.
// Rendezvous above 1000 bytes: rank 1's Send waits for rank 0's Recv, which comes after rank 0's
// Wait for its Isend, which waits for rank 1's Recv, which comes after rank 1's Send.
TEST_CASE("a deadlock's time is the latest a blocked rank reached, its computation included", "[replay][deadlock]") {
  TinyTrace t(2);
  t.call(0, "MPI_Isend", 100, 101, [&](RankBuilder& b) { b.isend(us(100), 1, t.world(), 7, 4096, 1); });
  t.work(0, "work", 101, 300);
  t.call(0, "MPI_Wait", 300, 400, [&](RankBuilder& b) { b.isend_complete(us(399), 1); });
  t.call(0, "MPI_Recv", 400, 500, [&](RankBuilder& b) { b.recv(us(499), 1, t.world(), 8, 4096); });
  t.call(1, "MPI_Send", 100, 200, [&](RankBuilder& b) { b.send(us(100), 0, t.world(), 8, 4096); });
  t.call(1, "MPI_Recv", 300, 400, [&](RankBuilder& b) { b.recv(us(399), 0, t.world(), 7, 4096); });
  const Trace in = t.finish(600);
  try {
    replay(in, tiny_platform(2, 1, 1000));
    FAIL("the replay should deadlock");
  } catch (const ReplayDeadlock& e) {
    REQUIRE(e.blocked().size() == 2);
    CHECK(e.blocked()[0].call == "MPI_Wait");
    CHECK(e.blocked()[1].call == "MPI_Send");
    // Rank 0: the Isend's overhead (100 + 1), its computation of 199 us (101 -> 300), the Wait's overhead.
    CHECK(e.time() == Approx(us(301)));
  }
}
