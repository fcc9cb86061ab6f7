// `rebalance: {mode: callpaths}`: every call path's k-th visit gets the ranks' mean exclusive
// computation. The expected values are worked out by hand in each test from the tiny traces.
#include <catch2/catch.hpp>

#include "tiny_trace.hpp"
#include "wisp/scenario/scenario_writer.hpp"
#include "wisp/scenario/selection.hpp"
#include "wisp/scenario/transform.hpp"

using namespace wisp;
using wisp::test::TinyTrace;
using wisp::test::us;

namespace {

Selection region(const std::string& name) {
  Selection s;
  s.region = name;
  return s;
}

Transform balance_callpaths(const Selection& s = {}) {
  Transform t;
  t.kind = TransformKind::Rebalance;
  t.mode = RebalanceMode::Callpaths;
  t.select = s;
  return t;
}

std::vector<double> microseconds(const Trace& t, const std::string& name) {
  std::vector<double> out;
  for (double c : computation(t, select_visits(t, region(name)))) out.push_back(c * 1e6);
  return out;
}

// Rank 0: solve 0..400 us calling dot 100..300 (solve's own 200 us, dot 200 us); rank 1: solve
// 0..200 calling dot 50..100 (own 150, dot 50). Means: solve's own 175 us, dot 125 us. Then
// barriers until 500 us.
Trace nested() {
  TinyTrace t(2);
  const double end[2] = {400, 200}, dot[2][2] = {{100, 300}, {50, 100}};
  for (Rank r = 0; r < 2; ++r) {
    RankBuilder& b = t.rank(r);
    b.enter(us(0), t.region("solve"));
    t.work(r, "dot", dot[r][0], dot[r][1]);
    b.leave(us(end[r]), t.region("solve"));
    t.collective(r, "MPI_Barrier", CollectiveOp::Barrier, t.world(), end[r], 500, 0);
  }
  return t.finish(500);
}

}  // namespace

TEST_CASE("rebalance callpaths: every call path's own computation to the ranks' mean, nested ones too") {
  const Trace t = nested();
  const Transformed out = apply_transforms(t, {balance_callpaths()});
  // dot: 125 us on both ranks; solve (its own 175 + dot 125): 300 us on both.
  for (double c : microseconds(out.trace, "dot")) CHECK(c == Approx(125).epsilon(1e-9));
  for (double c : microseconds(out.trace, "solve")) CHECK(c == Approx(300).epsilon(1e-9));
  // Total computation preserved: 400 + 200 = 600 us before, 300 + 300 after.
  REQUIRE(out.effects.size() == 1);
  CHECK(out.effects[0].before * 1e6 == Approx(600).epsilon(1e-9));
  CHECK(out.effects[0].after * 1e6 == Approx(600).epsilon(1e-9));
  CHECK_THAT(out.effects[0].description, Catch::Contains("call path by call path"));
  // Per instance of the outer region alone balances solve's inclusive time (300 each) but leaves dot
  // at 200 and 50 stretched with it: (200 / 400) * 300 = 150 and (50 / 200) * 300 = 75.
  Transform inclusive = balance_callpaths(region("solve"));
  inclusive.mode = RebalanceMode::Instance;
  const Transformed per_instance = apply_transforms(t, {inclusive});
  const std::vector<double> dots = microseconds(per_instance.trace, "dot");
  REQUIRE(dots.size() == 2);
  CHECK(dots[0] == Approx(150).epsilon(1e-9));
  CHECK(dots[1] == Approx(75).epsilon(1e-9));
}

// The k-th visits are matched: rank 0 works 300 then 100 us in `step`, rank 1 100 then 300 (a
// dynamic imbalance, equal totals). Balanced per visit both get 200 us in both iterations, which
// `total` mode cannot do (the totals are equal already).
TEST_CASE("rebalance callpaths: iterations balanced visit by visit") {
  TinyTrace t(2);
  const double first[2] = {300, 100};
  for (Rank r = 0; r < 2; ++r) {
    t.work(r, "step", 0, first[r]);
    t.collective(r, "MPI_Barrier", CollectiveOp::Barrier, t.world(), first[r], 300, 0);
    t.work(r, "step", 300, 300 + (400 - first[r]));
    t.collective(r, "MPI_Barrier", CollectiveOp::Barrier, t.world(), 300 + (400 - first[r]), 600, 0);
  }
  const Trace trace = t.finish(600);
  const Transformed out = apply_transforms(trace, {balance_callpaths()});
  for (double c : microseconds(out.trace, "step")) CHECK(c == Approx(200).epsilon(1e-9));
}

TEST_CASE("rebalance mode callpaths in a scenario file: parsed, written back, bad modes named") {
  const Scenario s = parse_scenario(
      "wisp: 1\nname: d\ntrace: {generate: \"imbalance --ranks 4 --iterations 4\"}\n"
      "transforms:\n  - rebalance: {mode: callpaths}\n",
      "d.yaml");
  REQUIRE(s.transforms.size() == 1);
  CHECK(s.transforms[0].mode == RebalanceMode::Callpaths);
  CHECK_THAT(scenario_yaml(s), Catch::Contains("mode: callpaths"));
  CHECK_THROWS_WITH(parse_scenario("wisp: 1\nname: d\ntrace: {generate: \"imbalance\"}\n"
                                   "transforms:\n  - rebalance: {mode: phases}\n",
                                   "d.yaml"),
                    Catch::Contains("d.yaml:5:") && Catch::Contains("instance, total or callpaths (got 'phases')"));
}
