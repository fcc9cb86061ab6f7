// ReplayOptions::simgrid_config: expert SimGrid settings, applied after wisp's own (so they can
// override them), and a wrong one is a wisp::Error naming it. Platform (tiny_trace.hpp): L = 10 us,
// 1 ns per byte, overhead 1 us.
#include <catch2/catch.hpp>

#include "tiny_trace.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;
using namespace wisp::test;

namespace {

// Rank 0 sends 500 bytes eagerly at 1000 us; rank 1 waits for them from 500 us.
Trace early_receiver() {
  TinyTrace t(2);
  t.call(0, "MPI_Send", 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, 500); });
  t.call(1, "MPI_Recv", 500, 1200, [&](RankBuilder& b) { b.recv(us(1200), 0, t.world(), 5, 500); });
  return t.finish(2000);
}

}  // namespace

TEST_CASE("SimGrid settings of the replay options apply after wisp's own", "[replay][simgrid]") {
  const Trace in = early_receiver();
  // wisp sets network/latency-factor:1; the option's factor 2 doubles the 10 us latency.
  ReplayOptions o;
  CHECK(call_leave(replay(in, tiny_platform(2, 1, 1000), o).trace, 1, 0) == Approx(1001 + 10 + 0.5));
  o.simgrid_config = {"network/latency-factor:2"};
  CHECK(call_leave(replay(in, tiny_platform(2, 1, 1000), o).trace, 1, 0) == Approx(1001 + 20 + 0.5));
}

TEST_CASE("an unknown SimGrid setting is an error naming it", "[replay][simgrid]") {
  ReplayOptions o;
  o.simgrid_config = {"no/such-key:1"};
  try {
    replay(early_receiver(), tiny_platform(2, 1, 1000), o);
    FAIL("no error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("'no/such-key:1'"));
    CHECK(what.find('\n') == std::string::npos);  // not SimGrid's list of every key
  }
}
