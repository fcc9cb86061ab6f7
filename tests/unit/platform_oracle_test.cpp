// The real platform oracle (tests/data/platform: the same 2-rank runs over Open MPI's shared memory
// and over TCP, with the measured post-MPI_Init time of runs A and B). What holds today: a
// ping-pong's own calibration replays it model-only within 5 % of its post-MPI_Init span; every
// allreduce case of the oracle, both directions and the three ways of describing the target, has
// the right sign and its interval (widened by the target's A/B spread) holds the measured change;
// every ping-pong and miniFE case is within the oracle's limit, and so are all but one of the halo's
// and all but three of the allreduce's. Asked as a placement ("one node or two?", the shared-memory ping-pong's
// calibration inside the nodes, the TCP one's between them) every case but one is within the limit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "../perf/platform_oracles.hpp"
#include "helpers.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;
namespace po = wisp::platform_oracle;

namespace {

const std::filesystem::path kOracle = std::filesystem::path(WISP_SOURCE_DIR) / "tests/data/platform";

// Seconds from the last rank's exit from MPI_Init to the trace's last event.
double post_init_span(const Trace& t) {
  double last_init = 0;
  for (Rank r = 0; r < t.rank_count(); ++r)
    for (const CallSpan& c : t.ranks[r].mpi_calls) {
      const Region& region = t.defs.region_of(t.ranks[r].events[c.enter].ref);
      if (region.mpi == MpiFunction::Init || region.mpi == MpiFunction::InitThread)
        last_init = std::max(last_init, t.ranks[r].events[c.leave].time);
    }
  return t.end_time() - last_init;
}

// Runs every case of `app` (in one directory of calibrations) and checks its outcome, which a
// failure prints.
template <class Check>
void each_case(const std::string& app, Check&& check, const std::vector<po::Case>& cases = po::cases()) {
  test::TempDir work;
  for (const po::Case& c : cases) {
    if (c.app != app) continue;
    const po::Outcome o = po::evaluate(kOracle, c, work.path());
    INFO(c.name() << ": predicted " << o.predicted() << " s, measured " << o.measured << " s, spread " << o.spread
                  << " s, interval [" << o.low() << ", " << o.high() << "] " << o.point.interval.note);
    check(c, o);
  }
}

}  // namespace

TEST_CASE("a ping-pong's own calibration replays it model-only within 5 % of its post-MPI_Init span",
          "[platform][calibrate][real]") {
  test::TempDir work;
  const auto measured = po::post_init(kOracle);
  for (const std::string transport : {"vader", "tcp"}) {
    const Trace trace = read_otf2(kOracle / ("pingpong_" + transport + "_A") / "traces.otf2");
    const Platform platform = load_platform(po::calibration(kOracle, transport, work.path()));
    const double simulated = post_init_span(replay(trace, platform, ReplayOptions{}).trace);
    const double truth = measured.at("pingpong_" + transport + "_A");
    INFO(transport << ": simulated " << simulated << " s, measured " << truth << " s");
    CHECK(post_init_span(trace) == Approx(truth).epsilon(1e-6));  // the oracle's figure is this trace's
    CHECK(std::abs(simulated - truth) <= 0.05 * truth);
  }
}

TEST_CASE("the allreduce cases of the platform oracle: the right sign, and the interval holds the measured change",
          "[platform][real]") {
  each_case("allreduce", [](const po::Case& c, const po::Outcome& o) {
    CHECK(o.sign_right());
    CHECK(o.holds());
    // A member's own cost in the collective (over TCP the late member's 8.8 us against the ping-pong's
    // one-way 6.1 us) scales with the price of its round, from the source's calibration to the
    // target's: the ping-pong calibrations come within the limit both ways (-42 %, +10 %), and so does
    // the source calibrated from the allreduce itself back to shared memory (-3 %). Towards TCP that
    // source's round is priced at 0.9 us, so its scaled own cost falls short (-65 %, 0.7 ms beyond the
    // TCP runs' 37 ms spread); typed-in numbers price TCP's exchange as one 8-byte one-way time (+39 %
    // back).
    const bool known_miss = c.target == "tcp" ? c.way == po::Way::CalibratedFile : c.way == po::Way::Numbers;
    CHECK(o.within_limit() != known_miss);
  });
}

// The typical excess (calibration step 6b) and the eager copy (step 6c) move with the network: the
// TCP ping-pong's typical message is 0.3 us further above its fastest than the shared-memory one's,
// and its eager 64 KiB sends copy 12 us into the socket that a shared-memory rendezvous does not.
// Typed-in numbers move the share of each call their latency and bandwidth hold (the 64 KiB
// receives' excess over a line through the 8-byte time and the 4 MiB bandwidth goes with the
// bandwidth). Every ping-pong case is within the limit (+9 %, +9 %, -11 % towards TCP; +10 %,
// +10 %, +14 % back), and every interval holds.
TEST_CASE("the ping-pong cases of the platform oracle: within the limit, the interval holding", "[platform][real]") {
  each_case("pingpong", [](const po::Case&, const po::Outcome& o) {
    CHECK(o.sign_right());
    CHECK(o.within_limit());
    CHECK(o.holds());
  });
}

// The halo: over TCP its messages' cost sits in MPI_Isend (4.6 us against 0.7 us over shared
// memory; MPI_Irecv and MPI_Waitall the same over both). Typed-in numbers hold it as the latency's
// share of each call that sends (-4 % towards TCP, 0 % back). A shared-memory source calibrated from
// the halo itself prices its 4 KiB messages (a rendezvous there) as 4.6 us of network, so towards
// the TCP ping-pong's calibration it predicts a third of the change (-68 %) and its interval misses.
TEST_CASE(
    "the halo cases of the platform oracle: the right sign, within the limit but from the app-calibrated "
    "shared memory",
    "[platform][real]") {
  each_case("halo", [](const po::Case& c, const po::Outcome& o) {
    CHECK(o.sign_right());
    const bool known_miss = c.source == "vader" && c.way == po::Way::CalibratedFile;
    CHECK(o.within_limit() != known_miss);
    CHECK(o.holds() != known_miss);
  });
}

// miniFE-40: its change (+1.2 ms towards TCP, -1.5 ms back) is within the spread of the target's
// runs (6.0 and 6.8 ms): the network barely matters. Its allreduces' own cost scales with their
// rounds' price (+2.7 and +3.9 ms towards TCP), not with a whole message's cost, overheads included,
// which the platform's overheads already move (+5.6 and +8.7 ms, tried: out of the limit). Every case
// is within it and every interval holds.
TEST_CASE("the miniFE cases of the platform oracle: within the limit, the interval holding", "[platform][real]") {
  each_case("minife40", [](const po::Case&, const po::Outcome& o) {
    CHECK(o.sign_right());
    CHECK(o.within_limit());
    CHECK(o.holds());
  });
}

TEST_CASE("the placement question on the platform oracle: one node or two, every case within the limit",
          "[platform][placement][real]") {
  for (const std::string app : {"allreduce", "halo", "minife40", "pingpong"})
    each_case(
        app,
        [](const po::Case&, const po::Outcome& o) {
          CHECK(o.sign_right());
          CHECK(o.holds());
          CHECK(o.within_limit());  // the allreduce's own cost scales with its round's price (-42 %, +10 %)
        },
        po::placement_cases());
}
