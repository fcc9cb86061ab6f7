// Scenario files (schema, defaults, every error with file:line:column) and the transforms on
// generated traces, with expected computation derived from the generators' definitions.
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>

#include "helpers.hpp"

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/selection.hpp"
#include "wisp/scenario/sweep.hpp"
#include "wisp/scenario/transform.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;

namespace {

Scenario parse(const std::string& text) { return parse_scenario(text, "dir/s.yaml"); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Selection region(const std::string& name) {
  Selection s;
  s.region = name;
  s.where = Where{"s.yaml", 3, 5};
  return s;
}

double total(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

gen::ImbalanceOptions imbalance(const std::string& mode) {
  gen::ImbalanceOptions o;
  o.ranks = 4;
  o.iterations = 8;
  o.mode = mode;
  return o;
}

}  // namespace

TEST_CASE("the smallest scenario of the issue parses with documented defaults") {
  const Scenario s = parse("wisp: 1\ntrace: ../traces/run42/traces.otf2\ntransforms:\n  - rebalance: {region: work}\n");
  CHECK(s.trace.path == std::filesystem::path("dir/../traces/run42/traces.otf2"));
  CHECK(s.platform.kind == PlatformSpec::Kind::Calibrated);
  REQUIRE(s.transforms.size() == 1);
  CHECK(s.transforms[0].kind == TransformKind::Rebalance);
  CHECK(s.transforms[0].mode == RebalanceMode::Instance);
  CHECK(s.transforms[0].select.region == "work");
  CHECK(s.analyses == analysis_keys());
  CHECK(s.name == "s");
  CHECK(s.sweep.empty());
}

TEST_CASE("scenario keys: platform, replay, generate, every transform") {
  test::TempDir dir;  // the hostfile is read when the scenario is parsed
  std::ofstream(dir / "hosts.txt") << "node-0\nnode-1\n";
  const Scenario s = parse_scenario(R"(wisp: 1
name: everything
trace: {generate: "halo --dims 2x2 --steps 3"}
platform: {hosts: 4, speed: 2e9, latency: 2e-6, bandwidth: 1e10, topology: torus}
replay: {eager_threshold: 4096, collectives: {allreduce: ring}, hostfile: hosts.txt}
transforms:
  - scale: {region: compute, ranks: "0-1", factor: 0.5}
  - set: {region: boundary, iterations: 1-2, seconds: 0.002}
  - zero: communication
  - move: {from: {region: compute, ranks: [2, 3]}, to: {region: compute, ranks: "0-1"}, fraction: 0.25}
  - platform: {bandwidth_factor: 2, latency_factor: 0.5}
  - rebalance: {callpath: "main/compute", mode: total, time: [0, 1.5]}
analyses: [wait_states, pop]
output: results
)",
                                    dir / "s.yaml");
  CHECK(s.name == "everything");
  CHECK(s.trace.generate == "halo --dims 2x2 --steps 3");
  CHECK(s.platform.kind == PlatformSpec::Kind::Generated);
  CHECK(s.platform.topology == "torus");
  CHECK(*s.replay.eager_threshold == 4096);
  CHECK(s.replay.collectives.at("allreduce") == "ring");
  CHECK(s.replay.hostfile == dir / "hosts.txt");
  REQUIRE(s.transforms.size() == 6);
  CHECK(s.transforms[0].select.ranks_text == "0-1");
  CHECK(s.transforms[1].select.iterations == std::make_pair(1u, 2u));
  CHECK(s.transforms[2].communication);
  CHECK(s.transforms[3].select.ranks_text == "2,3");
  CHECK(s.transforms[3].fraction == 0.25);
  CHECK(s.transforms[4].platform.bandwidth_factor == 2);
  CHECK(s.transforms[5].mode == RebalanceMode::Total);
  CHECK(s.transforms[5].select.time == std::make_pair(0.0, 1.5));
  CHECK(s.analyses == std::vector<std::string>{"wait_states", "pop"});
  CHECK(s.output == dir / "results");
}

TEST_CASE("scenario errors name the file, line and column") {
  CHECK(error_of("trace: t\n") == "dir/s.yaml:1:1: missing required key 'wisp' (the schema version: write 'wisp: 1')");
  CHECK(error_of("wisp: 2\ntrace: t\n") ==
        "dir/s.yaml:1:7: wisp: 2 is not a schema version this wisp reads (it reads wisp: 1)");
  CHECK(error_of("wisp: 1\ntrace: t\ntransfroms: []\n") ==
        "dir/s.yaml:3:1: unknown key 'transfroms' in the scenario (did you mean 'transforms'?)");
  CHECK_THAT(error_of("wisp: 1\ntrace: [unclosed\n"), Catch::StartsWith("dir/s.yaml:3:1: YAML syntax error"));
  CHECK(error_of("wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work, factor: -2}\n") ==
        "dir/s.yaml:4:35: factor must not be negative (got -2)");
  CHECK(error_of("wisp: 1\ntrace: t\ntransforms:\n  - rebalence: {region: work}\n") ==
        "dir/s.yaml:4:5: unknown transform 'rebalence' (did you mean 'rebalance'?)");
  CHECK(error_of("wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work, iterations: 20-10, factor: 1}\n") ==
        "dir/s.yaml:4:39: iterations 20-10 is not a valid range (whole numbers, first <= last)");
  // Beyond any iteration count (found by the scenario fuzzer: the check cast before comparing).
  CHECK_THAT(error_of("wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work, iterations: 0-6666666666666666666666, "
                      "factor: 1}\n"),
             Catch::StartsWith("dir/s.yaml:4:39: iterations 0-") && Catch::Contains("is not a valid range"));
  CHECK_THAT(error_of("wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work, iterations: 1.5-3, factor: 1}\n"),
             Catch::Contains("is not a valid range"));
  CHECK(error_of("wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work}\n") ==
        "dir/s.yaml:4:12: scale needs a factor");
  CHECK(error_of("wisp: 1\ntrace: t\ntransforms:\n  - move: {from: {region: a}, to: {region: b}, fraction: 1.5}\n") ==
        "dir/s.yaml:4:58: fraction must be at most 1 (got 1.5)");
  CHECK(error_of("wisp: 1\ntrace: t\nanalyses: [wait_state]\n") ==
        "dir/s.yaml:3:12: unknown analysis 'wait_state' (did you mean 'wait_states'?)");
  CHECK(error_of("wisp: 1\ntrace: t\nplatform: {file: a.xml, latency: 1e-6}\n") ==
        "dir/s.yaml:3:11: platform: give either a file or generated parameters, not both");
  // A calibration file is the network between nodes: it takes nodes, cores and a calibration inside them.
  CHECK(error_of("wisp: 1\ntrace: t\nplatform: {file: a.xml, cores: 2, latency: 1e-6}\n") ==
        "dir/s.yaml:3:11: platform: a file takes nodes, cores and intra: {file} (a wisp calibrate file is the network "
        "between nodes), not numbers");
  CHECK(error_of("wisp: 1\ntrace: t\nplatform: {cores: 2, intra: {file: a.xml, latency: 1e-6}}\n") ==
        "dir/s.yaml:3:29: intra: give either a calibration file or latency and bandwidth, not both");
  CHECK(error_of("wisp: 1\ntrace: t\nplatform: {file: a.xml, intra: 5}\n") ==
        "dir/s.yaml:3:32: intra is the network inside a node, e.g. {latency: 0.3e-6, bandwidth: 10e9} or {file: "
        "shm.xml}");
  CHECK(error_of("wisp: 1\ntrace: t\nreplay: {placement: [1]}\n") == "dir/s.yaml:3:21: placement must be a text value");
  CHECK(error_of("wisp: 1\ntrace: t\nreplay: {placement: round}\n") ==
        "dir/s.yaml:3:21: unknown placement 'round' (known: block, cyclic, traced, or {hostfile: FILE})");
  CHECK(error_of("wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work, factor: lots}\n") ==
        "dir/s.yaml:4:35: factor must be a number, not 'lots'");
  CHECK(error_of("") == "dir/s.yaml:1:1: the scenario is empty (start with 'wisp: 1')");
  CHECK_THROWS_WITH(load_scenario("/nonexistent/s.yaml"),
                    "/nonexistent/s.yaml: cannot read the scenario file: no such file");
  // A shorthand's selection has the place of its item (it was 0:0 once the shorthand was expanded).
  const Scenario s = parse_scenario("wisp: 1\ntrace: t\ntransforms:\n  - rebalance: nosuch\n", "dir/s.yaml");
  CHECK(s.transforms[0].select.where.str() == "dir/s.yaml:4:5");
  // A typo in a sweep key: named, at its place.
  const Scenario typo = parse_scenario(
      "wisp: 1\ntrace: t\ntransforms:\n  - scale: {region: work, factor: 1}\nsweep:\n  transforms[0].fator: [1, 2]\n",
      "dir/s.yaml");
  CHECK_THROWS_WITH(sweep_points_of(typo),
                    "dir/s.yaml:6:3: sweep key 'transforms[0].fator' (at the point transforms[0].fator=1): unknown "
                    "key 'fator' in transform 'scale' (did you mean 'factor'?)");
}

TEST_CASE("scenario export: formats, options, and paths inside the output directory", "[export]") {
  const Scenario s = parse_scenario(
      "wisp: 1\ntrace: t\nexport: {smpi-ti: ti, goal: out/run.goal, collectives: messages, time_unit: ps}\n",
      "dir/s.yaml");
  REQUIRE(s.exports.size() == 2);
  CHECK(s.exports[0].format == "smpi-ti");
  CHECK(s.exports[0].path == "ti");
  CHECK(s.exports[0].collectives_as_messages);
  CHECK(s.exports[1].format == "goal");
  CHECK(s.exports[1].path == "out/run.goal");
  CHECK(s.exports[1].picoseconds);
  CHECK(error_of("wisp: 1\ntrace: t\nexport: {goal: /tmp/x.goal}\n") ==
        "dir/s.yaml:3:16: export goal: '/tmp/x.goal' must be a relative path inside the output directory");
  CHECK(error_of("wisp: 1\ntrace: t\nexport: {smpi-ti: ../ti}\n") ==
        "dir/s.yaml:3:19: export smpi-ti: '../ti' must be a relative path inside the output directory");
  CHECK(error_of("wisp: 1\ntrace: t\nexport: {goal: g, time_unit: us}\n") ==
        "dir/s.yaml:3:30: export time_unit: 'us' is not ns or ps");
  CHECK(error_of("wisp: 1\ntrace: t\nexport: {collectives: messages}\n") ==
        "dir/s.yaml:3:9: export names no format (smpi-ti: DIR or goal: FILE)");
  CHECK_THAT(error_of("wisp: 1\ntrace: t\nexport: {gaol: g}\n"), Catch::Contains("unknown key 'gaol' in export"));
}

// `wisp run TRACE` (natural, since `wisp suggest` takes one): the commands that take a trace.
TEST_CASE("a trace given where a scenario is expected: the commands that take it") {
  wisp::test::TempDir dir;
  std::ofstream(dir / "traces.otf2") << "OTF2";
  const std::string trace = (dir / "traces.otf2").string();
  CHECK_THROWS_WITH(load_scenario(dir / "traces.otf2"),
                    Catch::StartsWith(trace + ": is an OTF2 trace, not a scenario file: `wisp suggest " + trace + "`"));
  CHECK_THROWS_WITH(load_scenario(dir.path()), Catch::StartsWith(trace + ": is an OTF2 trace"));
}

TEST_CASE("sweeps are the cartesian product of their axes") {
  const Scenario s = parse(R"(wisp: 1
trace: t
platform: calibrated
transforms:
  - scale: {region: work, factor: 1}
sweep:
  platform.bandwidth_factor: [0.25, 0.5, 1, 2]
  transforms[0].factor: [0.5, 1]
)");
  const auto points = sweep_points(s);
  REQUIRE(points.size() == 8);
  const Scenario p = sweep_point(s, points[5]);  // bandwidth index 2, factor index 1
  CHECK(p.platform.change.bandwidth_factor == 1);
  CHECK(p.transforms[0].factor == 1);
  const Scenario q = sweep_point(s, points[1]);
  CHECK(q.platform.change.bandwidth_factor == 0.25);
  CHECK(q.transforms[0].factor == 1);
  CHECK(q.name == "s[platform.bandwidth_factor=0.25,transforms[0].factor=1]");
  CHECK(sweep_point(s, points[0]).transforms[0].factor == 0.5);
  const Scenario bad = parse("wisp: 1\ntrace: t\nsweep:\n  transforms[3].factor: [1, 2]\n");
  CHECK_THROWS_WITH(sweep_point(bad, {0}),
                    "dir/s.yaml:4:3: sweep key 'transforms[3].factor': the scenario has no 'transforms'");
}

TEST_CASE("selections resolve regions, ranks, iterations and report what cannot exist") {
  const Trace t = gen::generate_imbalance(imbalance("static"));
  CHECK(select_visits(t, region("work")).size() == 4 * 8);
  CHECK(select_visits(t, region("*ork")).size() == 4 * 8);
  Selection some = region("work");
  some.ranks_text = "1-2";
  some.iterations = std::make_pair(2u, 4u);
  const auto v = select_visits(t, some);
  REQUIRE(v.size() == 2 * 3);
  CHECK(v[0].rank == 1);
  CHECK(v[0].index == 2);
  CHECK_THROWS_WITH(select_visits(t, region("wrok")), "s.yaml:3:5: no region 'wrok' in the trace (closest: work)");
  Selection beyond = region("work");
  beyond.ranks_text = "0-99";
  CHECK_THROWS_WITH(select_visits(t, beyond), Catch::Contains("s.yaml:3:5: rank set '0-99': rank 99 does not exist"));
  CHECK_THROWS_WITH(select_visits(t, region("MPI_Barrier")), Catch::Contains("is an MPI function"));
  Selection none = region("work");
  none.iterations = std::make_pair(50u, 60u);
  CHECK_THROWS_WITH(select_visits(t, none), Catch::Contains("matches no visit"));
}

TEST_CASE("rebalance per instance gives every k-th visit the mean; totals keep dynamic as is") {
  gen::ImbalanceOptions o = imbalance("dynamic");
  const Trace t = gen::generate_imbalance(o);
  const Selection work = region("work");
  const auto before = computation(t, select_visits(t, work));
  Transform rebalance;
  rebalance.kind = TransformKind::Rebalance;
  rebalance.select = work;
  const Transformed per_instance = apply_transforms(t, {rebalance});
  const auto after = computation(per_instance.trace, select_visits(per_instance.trace, work));
  // Dynamic: in every iteration the visits sum to 4 w, so each becomes w.
  for (double c : after) CHECK(c == Approx(o.work).epsilon(1e-9));
  CHECK(total(after) == Approx(total(before)).epsilon(1e-12));
  CHECK(per_instance.effects[0].before == Approx(per_instance.effects[0].after).epsilon(1e-12));
  // Totals: every rank already works 8 w in total, so nothing changes.
  rebalance.mode = RebalanceMode::Total;
  const Transformed totals = apply_transforms(t, {rebalance});
  const auto same = computation(totals.trace, select_visits(totals.trace, work));
  for (std::size_t k = 0; k < same.size(); ++k) CHECK(same[k] == Approx(before[k]).epsilon(1e-9));
}

TEST_CASE("scale, set and zero change computation and shift later events, not MPI time") {
  const Trace t = gen::generate_imbalance(imbalance("balanced"));
  Transform half;
  half.kind = TransformKind::Scale;
  half.select = region("work");
  half.factor = 0.5;
  const Trace scaled = apply_transforms(t, {half}).trace;
  const auto& a = t.ranks[0].events;
  const auto& b = scaled.ranks[0].events;
  // Every MPI call keeps its duration; every work visit is half as long.
  for (const CallSpan& c : t.ranks[0].mpi_calls)
    CHECK(b[c.leave].time - b[c.enter].time == Approx(a[c.leave].time - a[c.enter].time).margin(1e-12));
  const auto w = computation(scaled, select_visits(scaled, region("work")));
  for (double c : w) CHECK(c == Approx(0.025).epsilon(1e-9));
  // The run is 8 iterations x 25 ms shorter on every rank.
  CHECK(a.back().time - b.back().time == Approx(8 * 0.025).epsilon(1e-9));

  Transform set;
  set.kind = TransformKind::Set;
  set.select = region("work");
  set.select.iterations = std::make_pair(0u, 0u);
  set.seconds = 0.2;
  const Trace longer = apply_transforms(t, {set}).trace;
  CHECK(longer.ranks[3].events.back().time - t.ranks[3].events.back().time == Approx(0.15).epsilon(1e-9));

  Transform zero;
  zero.kind = TransformKind::Zero;
  zero.select = region("work");
  zero.select.ranks_text = "2";
  const Transformed z = apply_transforms(t, {zero});
  for (double c : computation(z.trace, select_visits(z.trace, zero.select))) CHECK(c == 0.0);
  Transform comm;
  comm.kind = TransformKind::Zero;
  comm.communication = true;
  Transform platform;
  platform.kind = TransformKind::Platform;
  platform.platform.bandwidth_factor = 2;
  const Transformed options = apply_transforms(t, {comm, platform, platform});
  CHECK(options.zero_communication);
  CHECK(options.platform.bandwidth_factor == 4);
}

TEST_CASE("move shifts a fraction of one partition's work to another, conserving the total") {
  gen::MpmdOptions o;
  o.particle_ranks = 2;
  o.mesh_ranks = 2;
  o.steps = 3;
  o.particle_work = 0.02;
  o.mesh_work = 0.06;
  const Trace t = gen::generate_mpmd(o);
  Transform move;
  move.kind = TransformKind::Move;
  move.select = region("mesh_solve");
  move.to = region("particle_push");
  move.fraction = 0.25;
  const Transformed m = apply_transforms(t, {move});
  const auto mesh = computation(m.trace, select_visits(m.trace, region("mesh_solve")));
  const auto particle = computation(m.trace, select_visits(m.trace, region("particle_push")));
  // Mesh visits: 30 ms each -> 22.5 ms; particle visits: 10 ms + (0.25 * 0.06 / 2) = 17.5 ms,
  // exactly what the generator's own --shift 0.25 produces.
  for (double c : mesh) CHECK(c == Approx(0.0225).epsilon(1e-9));
  for (double c : particle) CHECK(c == Approx(0.0175).epsilon(1e-9));
  o.shift = 0.25;
  const Trace shifted = gen::generate_mpmd(o);
  const auto expected = computation(shifted, select_visits(shifted, region("particle_push")));
  CHECK(total(particle) == Approx(total(expected)).epsilon(1e-9));
  CHECK(m.effects[0].before == Approx(m.effects[0].after).epsilon(1e-12));
  Transform overlap = move;
  overlap.to = region("mesh_solve");
  CHECK_THROWS_WITH(apply_transforms(t, {overlap}), Catch::Contains("select the same visit"));
}

TEST_CASE("a whole-rank selection skips root MPI calls: only the user regions' computation is selected") {
  // Some writers (SST/macro) record MPI calls outside any user region: the rank's roots are then
  // MPI_Init, the user region and MPI_Finalize.
  Definitions d;
  Location loc;
  loc.name = "rank 0";
  d.ranks.push_back(loc);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0}, false, kNone});
  const RegionId init = d.add_region(make_region("MPI_Init"));
  const RegionId solve = d.add_region(make_region("solve"));
  TraceBuilder b(std::move(d));
  RankBuilder& r = b.rank(0);
  r.enter(0, init), r.leave(1, init), r.enter(1, solve), r.leave(5, solve);
  const Trace t = b.finish();
  Selection whole;
  whole.where = Where{"s.yaml", 3, 5};
  whole.ranks_text = "0";
  const auto visits = select_visits(t, whole);
  REQUIRE(visits.size() == 1);
  CHECK(t.defs.region_of(t.ranks[0].events[visits[0].enter].ref).name == "solve");
}
