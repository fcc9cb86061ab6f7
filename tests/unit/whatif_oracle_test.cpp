// The real what-if oracles (tests/data/whatif): wisp's predicted gain against the measured run of
// the fix, with trace-anchored costs (the default). Limits: never the wrong sign; the
// point estimate within 25 % of the measured gain on the 8-rank-on-2-core runs (their contention
// floor is 17-20 %) and within 10 % on the barrier step, or else the measured gain inside the gain
// interval with the interval's warning; miniFE's predicted balanced span within 10 % of the
// measured one (its run-to-run noise is 4-8 %); the anchored identity within 0.1 %.
#include <catch2/catch.hpp>

#include <cmath>

#include "../perf/whatif_oracles.hpp"
#include "wisp/scenario/gain_interval.hpp"

using namespace wisp;

namespace {

const std::filesystem::path kOracles = std::filesystem::path(WISP_SOURCE_DIR) / "tests/data/whatif";

}  // namespace

TEST_CASE("what-if oracles: the predicted gain holds against the measured fix", "[replay][costs][real][whatif]") {
  double held = 0;
  for (const oracle::Oracle& o : oracle::oracles()) {
    const oracle::Outcome r = oracle::evaluate(kOracles, o, "anchored");
    held += r.held();
    const GainInterval& g = r.point.interval;
    INFO(o.name << ": predicted gain " << r.point.gain() << " s, measured " << r.measured_gain << " s, interval ["
                << g.low << ", " << g.high << "] " << g.note);
    CHECK(std::abs(r.point.identity_error()) <= 1e-3);
    CHECK(r.point.gain() * r.measured_gain > 0);  // never the wrong sign
    REQUIRE(g.available);
    CHECK(g.low <= r.point.gain());
    CHECK(r.point.gain() <= g.high);
    REQUIRE(g.fixed_costs);
    REQUIRE(g.model_only);
    CHECK(g.variability.segments >= kMinSegments);
    if (o.clean) {
      CHECK(std::abs(r.span_error()) <= 0.10);
    } else {
      const double limit = o.name.rfind("imb8_barrier", 0) == 0 ? 0.10 : 0.25;
      if (std::abs(r.error()) > limit) {
        CHECK(r.held() > 0);
        CHECK_FALSE(interval_warning(g).empty());
      }
    }
  }
  // The mean share of measured gains the intervals hold (share_held): 48 % at issue 56's start, its
  // goal 90 %. A floor, so that no change lowers it.
  CHECK(held / static_cast<double>(oracle::oracles().size()) >= 0.48);
}

TEST_CASE("share_held: the share of the measured gains inside the interval", "[scenario][interval]") {
  GainInterval g;
  CHECK(share_held(g, {1.0}) == 0);  // no interval: holds nothing
  g.available = true;
  g.low = 0.2;
  g.high = 0.3;
  CHECK(share_held(g, {}) == 0);
  CHECK(share_held(g, {0.25}) == 1);
  CHECK(share_held(g, {0.2, 0.3, 0.31, 0.1}) == Approx(0.5));  // the ends are inside
}

// The ring step's cause, found in the trace: rank 7's MPI_Sendrecv sends 8 KiB to rank 0, which
// arrives last, and leaves only after rank 0 came (rendezvous). Calibration reads it as protocol
// evidence; without it (eager threshold forced above 8 KiB) the residual attribution still
// re-derives that wait: the gain keeps its sign and the fixed-costs bound shows the old error.
TEST_CASE("ring oracle: a late receiver's wait is re-derived, not kept as fixed cost",
          "[replay][costs][real][whatif]") {
  oracle::Oracle o = oracle::oracles()[3];
  REQUIRE(o.name == "imb8_ring/static");
  const Trace measured = read_otf2(kOracles / o.trace);
  const double measured_gain = measured.end_time() - read_otf2(kOracles / o.fixed[0]).end_time();
  const std::string yaml = "wisp: 1\nname: ring\ntrace: " + (kOracles / o.trace).string() +
                           "\nreplay:\n  eager_threshold: 65536\ntransforms:\n" + o.transforms;
  const Scenario scenario = parse_scenario(yaml, kOracles / "ring.yaml");  // PointRun keeps a reference
  PointRun run(scenario, measured);
  const PointResult r = run.finish();
  REQUIRE(r.residuals);
  CHECK(r.residuals->partner_waits >= 90);  // about one per iteration on rank 7
  CHECK(r.residuals->dependent > 0.2);      // most of its 0.28 s of residual
  CHECK(std::abs(r.gain() - measured_gain) / measured_gain <= 0.25);
  REQUIRE(r.interval.fixed_costs);
  CHECK(*r.interval.fixed_costs < 0);  // every residual kept as fixed cost: the wrong sign
  CHECK_FALSE(interval_warning(r.interval).empty());
}
