// Platform what-ifs, the groundwork: a scenario that changes nothing replays exactly as the identity
// on every real trace; the reach counts the network's part of the MPI time only (a hand-made trace
// whose parts follow from its numbers, and cloverleaf_2r); the two ideal networks are printed
// under their names; a platform with fewer hosts than ranks is fitted or warned about; every file
// a scenario names is checked, at its line and column, before any replay.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "hand_trace.hpp"
#include "helpers.hpp"
#include "wisp/generate/command_line.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/scenario/network_scaling.hpp"
#include "wisp/scenario/platform_reach.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/trace_source.hpp"

using namespace wisp;
using nlohmann::json;
using wisp::test::run_wisp;
using wisp::test::TempDir;

namespace fs = std::filesystem;

namespace {

// The largest difference of two simulated traces' event times [s] (the same events).
double largest_difference(const Trace& a, const Trace& b) {
  REQUIRE(a.rank_count() == b.rank_count());
  double most = 0;
  for (Rank r = 0; r < a.rank_count(); ++r) {
    REQUIRE(a.ranks[r].events.size() == b.ranks[r].events.size());
    for (std::size_t i = 0; i < a.ranks[r].events.size(); ++i)
      most = std::max(most, std::abs(a.ranks[r].events[i].time - b.ranks[r].events[i].time));
  }
  return most;
}

// A scenario of `transforms` (YAML list items) on the trace at `path`, without the interval.
Scenario scenario_of(const fs::path& path, const std::string& transforms) {
  return parse_scenario(fmt::format("wisp: 1\ntrace: \"{}\"\nreplay: {{interval: false}}\n{}", path.string(),
                                    transforms.empty() ? "" : "transforms:\n" + transforms),
                        "noop.yaml");
}

// A platform change of nothing and no transform at all both replay as the identity, event by event.
void require_nothing_changes(const fs::path& archive) {
  INFO(archive.string());
  const Trace measured = read_otf2(archive);
  const Scenario noop = scenario_of(archive, "  - platform: {latency_factor: 1, bandwidth_factor: 1}\n");
  const IdentityRun identity = run_identity(noop, measured);
  for (const Scenario& s : {noop, scenario_of(archive, "")}) {
    const PointResult r = run_scenario(s, measured, apply_transforms(measured, s.transforms), identity);
    CHECK(r.scenario_replay.runtime == r.identity_replay.runtime);
    CHECK(largest_difference(r.identity_replay.trace, r.scenario_replay.trace) < 1e-9);
  }
}

// Every real trace of tests/data under `folder`.
std::vector<fs::path> archives_under(const std::string& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(test::real_trace(folder)))
    if (e.path().filename() == "traces.otf2") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every number of two JSON documents, paired by place (keys and shapes must match).
void require_same_numbers(const json& a, const json& b, const std::string& at) {
  INFO(at);
  REQUIRE(a.type() == b.type());
  if (a.is_number()) {
    CHECK(std::abs(a.get<double>() - b.get<double>()) <= 1e-9);
  } else if (a.is_object()) {
    for (const auto& [key, value] : a.items()) {
      REQUIRE(b.contains(key));
      require_same_numbers(value, b[key], at + "." + key);
    }
  } else if (a.is_array()) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) require_same_numbers(a[i], b[i], fmt::format("{}[{}]", at, i));
  }  // texts (the traces' descriptions) may differ: the numbers are the metrics
}

// Sum over ranks of the traced durations of the calls of MPI function `name`.
double traced_seconds_of(const Trace& t, const std::string& name) {
  double sum = 0;
  for (const RankTrace& rt : t.ranks)
    for (const CallSpan& c : rt.mpi_calls)
      if (t.defs.region_of(rt.events[c.enter].ref).name == name)
        sum += rt.events[c.leave].time - rt.events[c.enter].time;
  return sum;
}

}  // namespace

TEST_CASE("a change of nothing replays as the identity, event by event: the real application traces",
          "[platform][real]") {
  for (const fs::path& a : archives_under("apps")) require_nothing_changes(a);
}

TEST_CASE("a change of nothing replays as the identity, event by event: the what-if oracles", "[platform][real]") {
  for (const fs::path& a : archives_under("whatif")) require_nothing_changes(a);
}

TEST_CASE("a change of nothing replays as the identity, event by event: other writers and the ping-pongs",
          "[platform][real]") {
  for (const char* folder : {"other-writers", "scorep-ping-pong", "scorep-ping-pong-papi"})
    for (const fs::path& a : archives_under(folder)) require_nothing_changes(a);
}

// The case: a platform transform with factors 1 moved Sweep3D's run by +98 us. Now the
// runtime and every metric of the scenario's analyses equal the identity's, in `wisp run` itself.
TEST_CASE("wisp run of a platform change of nothing on Sweep3D: runtime and every metric equal the identity",
          "[platform][real][cli]") {
  TempDir dir;
  const auto trace = test::real_trace("apps/sweep3d_50c_6r") / "traces.otf2";
  std::ofstream(dir / "s.yaml") << "wisp: 1\ntrace: \"" << trace.string()
                                << "\"\ntransforms:\n  - platform: {latency_factor: 1, bandwidth_factor: 1}\n";
  const auto r = run_wisp("-q run --no-interval -o " + (dir / "out").string() + " " + (dir / "s.yaml").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(std::ifstream(dir / "out" / "report.json"));
  CHECK(j["runtime"]["scenario"].get<double>() == j["runtime"]["identity"].get<double>());
  CHECK(j["gain"]["seconds"].get<double>() == 0.0);
  json identity = j["analyses"]["identity"], scenario = j["analyses"]["scenario"];
  REQUIRE(identity.is_object());
  require_same_numbers(identity, scenario, "analyses");
  for (const json& row : j["callpaths"]) CHECK(std::abs(row["change"].get<double>()) <= 1e-9);
}

// A region balanced to the nanosecond (the generator's balanced mode): rebalancing it changes nothing.
TEST_CASE("rebalancing a region that is already balanced replays as the identity", "[platform]") {
  const Scenario s = parse_scenario(
      "wisp: 1\ntrace: {generate: \"imbalance --ranks 4 --iterations 30 --mode balanced\"}\n"
      "replay: {interval: false}\ntransforms:\n  - rebalance: work\n",
      "balanced.yaml");
  const ScenarioTrace in = load_trace(s);
  const Transformed t = apply_transforms(in.trace, s.transforms);
  REQUIRE(t.effects.front().visits == 4 * 30);
  CHECK(largest_difference(t.trace, in.trace) == 0.0);  // no time moves, not even by a rounding
  const IdentityRun identity = run_identity(s, in.trace);
  const PointResult r = run_scenario(s, in.trace, t, identity);
  CHECK(r.scenario_replay.runtime == r.identity_replay.runtime);
  CHECK(largest_difference(r.identity_replay.trace, r.scenario_replay.trace) < 1e-9);
}

// Two ranks on a contention-free crossbar of latency 0.01 s, 1e6 bytes/s and 1 ms per call:
//   rank 0: MPI_Init [0,1], work [1,3], MPI_Send of 8000 bytes [3,3.5], work [3.5,4], MPI_Finalize [4,5]
//   rank 1: MPI_Init [0,1], MPI_Recv [1,3.2], work [3.2,4], MPI_Finalize [4,5]
// The send's model: its overhead, 0.001 s (eager: it does not wait): network 0.001, residual 0.499.
// The receive's model ends when the message arrives: 3 + 0.001 + 0.01 + 8000 / 1e6 = 3.019; it
// waited for the send's enter at 3, so network 3.019 - 3 = 0.019, waiting 3 - 1 = 2, residual
// 3.2 - 3.019 = 0.181. Init and Finalize: 4 x 1 s, traced.
namespace {

Trace reach_trace() {
  test::HandTrace h(2);
  for (Rank r : {0u, 1u}) h.init(r, 0, 1);
  h.work(0, 1, 3, "work");
  h.send(0, 3, 3.5, 1, 0, 8000);
  h.work(0, 3.5, 4, "work");
  h.recv(1, 1, 3.2, 0, 0, 8000);
  h.work(1, 3.2, 4, "work");
  for (Rank r : {0u, 1u}) h.finalize(r, 4, 5);
  return h.finish();
}

// Its network, doubled in bandwidth.
Scenario reach_scenario(bool interval) {
  return parse_scenario(fmt::format("wisp: 1\ntrace: hand.otf2\nreplay: {{interval: {}}}\n"
                                    "platform: {{latency: 0.01, bandwidth: 1e6, overhead: 0.001, contention: false}}\n"
                                    "transforms:\n  - platform: {{bandwidth_factor: 2}}\n",
                                    interval),
                        "hand.yaml");
}

}  // namespace

TEST_CASE("the reach is the network's part of the traced MPI time, by the numbers of a hand-made trace", "[platform]") {
  const Trace t = reach_trace();
  const IdentityRun identity = run_identity(reach_scenario(false), t);
  const std::optional<PlatformReach> reach = platform_reach(identity.residuals);
  REQUIRE(reach);
  CHECK(reach->traced == Approx(0.5 + 2.2 + 4.0).margin(1e-9));
  CHECK(reach->network == Approx(0.001 + 0.019).margin(1e-9));
  CHECK(reach->waiting == Approx(2.0).margin(1e-9));
  CHECK(reach->init_finalize == Approx(4.0).margin(1e-9));
  CHECK(reach->residual == Approx(0.499 + 0.181).margin(1e-9));
  CHECK_THAT(platform_reach_text(*reach), Catch::Contains("0.020000 s of 6.700000 s"));
  // The network is typed in numbers: of the residuals its latency is the send's (0.01 s of 0.499 s)
  // and its bytes over the bandwidth the receive's (0.008 s of 0.181 s), which a platform change
  // moves too: (0.020 + 0.018) / (0.020 + 0.680) = 5.4 %.
  CHECK(reach->typical == Approx(0.01 + 0.008).margin(1e-9));
  CHECK_THAT(platform_reach_warning(*reach),
             Catch::Contains("explains 5 % of what the MPI calls cost beside waiting (0.038 s of 0.700 s, 0.018 s of "
                             "it the network's typical part in the residual)"));
  CHECK_THAT(platform_reach_warning(*reach), Catch::Contains("the residual 0.662 s is kept as measured"));
}

// The same trace, read the other way: the residuals scale with the network. A message of 8000 B
// costs o + L + s/B = 0.001 + 0.01 + 0.008 = 0.019 s on the identity's network and 0.015 s with the
// bandwidth doubled: the send's residual 0.499 and the receive's 0.181 become 15/19 of themselves,
// Init and Finalize keep theirs. Rank 1 then enters MPI_Finalize 0.004 (transfer) + 0.181 x 4/19
// earlier, at 3.957895 s; rank 0, whose send's residual shrinks by 0.499 x 4/19, at 3.894947 s:
// the run ends 4 - 3.957895 = 0.042105 s earlier. Keeping the residuals, rank 0 still enters at 4:
// the point gains nothing, and the interval spans both readings.
TEST_CASE("the interval's third reading: residuals that scale with the network, by hand", "[platform]") {
  const Trace t = reach_trace();
  const Scenario s = reach_scenario(true);
  const IdentityRun identity = run_identity(s, t);
  REQUIRE(identity.replay.residuals);
  const CallResiduals& kept = *identity.replay.residuals;
  Platform target = identity.platform.platform;
  target.bandwidth_factor = 2;
  const std::optional<CallResiduals> scaled =
      residuals_scaled_with_network(t, kept, identity.platform.platform, target);
  REQUIRE(scaled);
  // Calls by rank: Init, Send/Recv, Finalize.
  CHECK(scaled->by_rank[0][1] == Approx(0.499 * 15 / 19).margin(1e-9));
  CHECK(scaled->by_rank[1][1] == Approx(0.181 * 15 / 19).margin(1e-9));
  for (Rank r : {0u, 1u})
    for (std::size_t call : {0u, 2u}) CHECK(scaled->by_rank[r][call] == kept.by_rank[r][call]);
  const PointResult p = run_point(s, t);
  CHECK(p.gain() == Approx(0).margin(1e-9));
  REQUIRE(p.interval.network_scaled);
  CHECK(*p.interval.network_scaled == Approx(0.004 + 0.181 * 4 / 19).margin(1e-7));
  CHECK(p.interval.high >= *p.interval.network_scaled);
  // A SimGrid file that is not a calibrated crossbar has no network in numbers: no third reading,
  // and the interval's note says why.
  const std::string torus = std::string(WISP_SOURCE_DIR) + "/platforms/torus.xml";
  CHECK_FALSE(network_numbers(load_platform(torus)));
  const Scenario on_torus = parse_scenario(
      "wisp: 1\ntrace: hand.otf2\nplatform: {latency: 0.01, bandwidth: 1e6, overhead: 0.001, contention: false}\n"
      "transforms:\n  - platform: {file: \"" +
          torus + "\"}\n",
      "torus.yaml");
  const PointResult q = run_point(on_torus, t);
  CHECK_FALSE(q.interval.network_scaled);
  CHECK_THAT(q.interval.note, Catch::Contains("no reading of the residuals scaled with the network"));
}

// cloverleaf_2r (2 ranks bound to 2 cores): MPI_Init alone holds 0.473 s of its 0.994 s of traced
// MPI time; the reach once counted it (0.925 s). Now the reach is the network's part (at most
// 0.52 s), Init and Finalize are their traced time (summed here from the trace), the parts add up
// to the traced MPI time, and both ideal networks are printed under what they assume: POP's equal
// to the identity's POP T_ideal, the infinitely fast one to this very what-if on platforms/ideal.xml.
TEST_CASE("cloverleaf_2r on the ideal platform: the reach's parts and the two ideal networks",
          "[platform][real][cli]") {
  TempDir dir;
  const auto trace = test::real_trace("apps/cloverleaf_2r") / "traces.otf2";
  std::ofstream(dir / "s.yaml") << "wisp: 1\ntrace: \"" << trace.string() << "\"\ntransforms:\n  - platform: {file: \""
                                << WISP_SOURCE_DIR << "/platforms/ideal.xml\"}\n";
  const auto r = run_wisp("-q run --no-interval -o " + (dir / "out").string() + " " + (dir / "s.yaml").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(std::ifstream(dir / "out" / "report.json"));
  const json& reach = j["trust"]["platform_reach"];
  const Trace measured = read_otf2(trace);
  const double init_finalize = traced_seconds_of(measured, "MPI_Init") + traced_seconds_of(measured, "MPI_Finalize");
  CHECK(init_finalize == Approx(0.473).margin(0.001));
  CHECK(reach["init_finalize_seconds"].get<double>() == Approx(init_finalize).margin(1e-6));
  CHECK(reach["network_seconds"].get<double>() <= 0.52);
  CHECK(reach["network_seconds"].get<double>() > 0);
  CHECK(reach["network_seconds"].get<double>() + reach["waiting_seconds"].get<double>() +
            reach["init_finalize_seconds"].get<double>() + reach["residual_seconds"].get<double>() ==
        Approx(reach["traced_mpi_seconds"].get<double>()).margin(1e-9));
  const json& ideal = j["trust"]["ideal_networks"];
  CHECK(ideal["transfers_and_mpi_calls_take_no_time"].get<double>() ==
        Approx(j["analyses"]["identity"]["pop"]["ideal_runtime"].get<double>()).margin(1e-9));
  CHECK(ideal["network_infinitely_fast_calls_keep_software_cost"].get<double>() ==
        Approx(j["runtime"]["scenario"].get<double>()).margin(1e-6));
  CHECK(ideal["transfers_and_mpi_calls_take_no_time"].get<double>() <
        ideal["network_infinitely_fast_calls_keep_software_cost"].get<double>());
  const std::string text = *read_file(dir / "out" / "report.txt");
  CHECK_THAT(text, Catch::Contains("ideal network (POP's T_ideal) transfers and MPI calls take no time: "));
  CHECK_THAT(text, Catch::Contains("ideal network infinitely fast, calls keep their software cost: "));
  CHECK_THAT(text, Catch::Contains("MPI_Init and MPI_Finalize"));
}

// A `wisp calibrate` platform of the 2-rank ping-pong used for a 4-rank trace: one host per rank
// with the calibrated links (before: two ranks per single-core host, the runtime doubled). Another
// platform with fewer cores than ranks is a machine: its ranks share cores, and a warning says so.
TEST_CASE("a platform with fewer hosts than ranks: a calibrated network is fitted, a machine is warned about",
          "[platform][cli]") {
  TempDir dir;
  const auto pingpong = test::real_trace("scorep-ping-pong") / "traces.otf2";
  REQUIRE(run_wisp("-q calibrate " + pingpong.string() + " -o " + (dir / "pp.xml").string()).exit_code == 0);
  REQUIRE(run_wisp("-q generate halo --dims 2x2 --steps 20 -o " + (dir / "halo").string()).exit_code == 0);
  const std::string halo = (dir / "halo" / "traces.otf2").string();
  const Trace measured = read_otf2(halo);
  const auto fitted = run_wisp("simulate --costs model --platform " + (dir / "pp.xml").string() + " -o " +
                               (dir / "a").string() + " " + halo);
  INFO(fitted.err);
  REQUIRE(fitted.exit_code == 0);
  CHECK_THAT(fitted.out, Catch::Contains("its 2 hosts describe the network"));
  CHECK_THAT(fitted.out, Catch::Contains("the 4 ranks run on one host each"));
  CHECK_THAT(fitted.err, !Catch::Contains("share cores"));
  const Trace simulated = read_otf2(dir / "a" / "traces.otf2");
  CHECK(simulated.end_time() == Approx(measured.end_time()).epsilon(0.02));  // not doubled
  std::ofstream(dir / "hosts") << "node-0\nnode-1\n";
  const auto shared = run_wisp("simulate --costs model --platform " + std::string(WISP_SOURCE_DIR) +
                               "/platforms/crossbar.xml --hostfile " + (dir / "hosts").string() + " -o " +
                               (dir / "b").string() + " " + halo);
  REQUIRE(shared.exit_code == 0);
  CHECK_THAT(shared.err, Catch::Contains("the replay puts 4 of 4 ranks on hosts with fewer cores than ranks "
                                         "(ranks 0 and 2 on node-0 (1 core))"));
}

// Each file a scenario names, missing, is reported at its line and column at once: no replay ran.
TEST_CASE("every file a scenario names is checked before any replay, at its line and column", "[platform][cli]") {
  TempDir dir;
  const auto trace = test::real_trace("apps/cloverleaf_2r") / "traces.otf2";
  const std::string head = "wisp: 1\ntrace: \"" + trace.string() + "\"\n";
  const std::string ideal = std::string(WISP_SOURCE_DIR) + "/platforms/ideal.xml";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"transforms:\n  - platform: {file: nowhere.xml}\n", "s.yaml:4:22: platform "},
      {"platform: nowhere.xml\n", "s.yaml:3:11: platform "},
      {"transforms:\n  - platform: {file: \"" + ideal + "\"}\nsweep:\n  transforms[0].file: [\"" + ideal +
           "\", nowhere.xml]\n",
       "s.yaml:6:" + std::to_string(25 + ideal.size() + 3) + ": platform "},
      {"replay: {hostfile: hosts.txt}\n", "s.yaml:3:20: hostfile "},
      {"export: {goal: report.json}\n", "s.yaml:3:16: export goal: 'report.json' is where wisp run writes its own"},
      {"export: {goal: a.goal, smpi-ti: a.goal}\n", "s.yaml:3:16: export goal: 'a.goal' is the smpi-ti export's path"},
  };
  for (const auto& [body, expected] : cases) {
    std::ofstream(dir / "s.yaml", std::ios::trunc) << head << body;
    const auto r = run_wisp("run -o " + (dir / "out").string() + " " + (dir / "s.yaml").string());
    INFO(body << r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(expected));
    CHECK_THAT(r.err, !Catch::Contains("replaying"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(dir / "out"));
  }
}

// Way (c) of describing a network: absolute numbers, as a Dimemas user types them. The generator's
// analytic model on that network gives the expected runtime (trace-anchored residuals are zero:
// the identity is the model).
TEST_CASE("a network in absolute numbers in a platform transform equals the model on that network", "[platform]") {
  const Scenario s = parse_scenario(
      "wisp: 1\ntrace: {generate: \"halo --dims 4x2 --steps 20 --work 0.001 --boundary-work 0 --bytes 262144\"}\n"
      "platform: {latency: 1e-6, bandwidth: 1e10, overhead: 1e-6, contention: false}\n"
      "replay: {collectives: {all: analytic}, interval: false}\n"
      "transforms:\n  - platform: {latency: 2e-5, bandwidth: 2.5e9, overhead: 3e-6}\n",
      "absolute.yaml");
  const ScenarioTrace in = load_trace(s);
  const PointResult r = run_point(s, in.trace);
  const std::string halo = "halo --dims 4x2 --steps 20 --work 0.001 --boundary-work 0 --bytes 262144";
  CHECK(r.identity == Approx(gen::generate_from_command_line(halo).end_time()).epsilon(1e-6));
  const Trace model = gen::generate_from_command_line(halo + " --latency 2e-5 --bandwidth 2.5e9 --overhead 3e-6");
  CHECK(r.scenario == Approx(model.end_time()).epsilon(0.001));
  CHECK_THAT(r.scenario_platform,
             Catch::Contains("network latency 2e-05 s, bandwidth 2.5e+09 bytes/s, overhead 3e-06 s"));
  // A platform file needs both latency and bandwidth: it is replaced by a crossbar.
  const std::string file = std::string(WISP_SOURCE_DIR) + "/platforms/crossbar.xml";
  CHECK_THROWS_WITH(parse_scenario("wisp: 1\ntrace: t.otf2\nplatform: {file: \"" + file +
                                       "\"}\ntransforms:\n  - platform: {latency: 1e-6}\n",
                                   "file.yaml"),
                    Catch::Contains("file.yaml:5:5: platform: latency and bandwidth go together here"));
}

// The typical excess, by hand. Rank 1 posts each of 101 receives of 8 B 0.01 s before rank 0's
// send (1 ms, the send's overhead) starts; the message arrives d after the send's overhead, with d
// 0.010 s (34 times), 0.020 s (33) and 0.040 s (34). The fastest transfer is 0.010 s, the median
// 0.020 s: a typical message takes 0.010 s more than the fastest, all of it latency (one size).
namespace {

Trace typical_trace() {
  test::HandTrace h(2);
  for (Rank r : {0u, 1u}) h.init(r, 0, 1);
  for (int i = 0; i < 101; ++i) {
    const double t0 = 10 + 0.1 * i, d = i < 34 ? 0.010 : (i < 67 ? 0.020 : 0.040);
    h.send(0, t0, t0 + 0.001, 1, 0, 8);
    h.recv(1, t0 - 0.01, t0 + 0.001 + d, 0, 0, 8);
  }
  for (Rank r : {0u, 1u}) h.finalize(r, 30, 31);
  return h.finish();
}

}  // namespace

TEST_CASE("the typical excess: the median minus the fastest transfer, by hand, and what a platform change does to it",
          "[platform][calibrate]") {
  const Trace t = typical_trace();
  const Calibration c = calibrate(t);
  INFO(calibration_text(c));
  REQUIRE(c.platform.mpi.typical_excess);
  CHECK(c.platform.mpi.typical_excess->latency == Approx(0.010).margin(1e-9));
  CHECK(c.platform.mpi.typical_excess->per_byte == 0);
  CHECK_THAT(calibration_text(c), Catch::Contains("typical excess   10000.000 us"));
  // It survives the platform's XML form.
  test::TempDir dir;
  std::ofstream(dir / "c.xml") << platform_xml(c.platform);
  const Platform loaded = load_platform(dir / "c.xml");
  REQUIRE(loaded.mpi.typical_excess);
  CHECK(loaded.mpi.typical_excess->latency == Approx(0.010).epsilon(1e-8));
  // A target whose typical message takes 0.002 s over its fastest: every receive loses 0.008 s of
  // its residual, at most all of it (beyond a partner's lateness); sends, Init and Finalize keep
  // theirs. Residuals by hand: rank 1's receives 0.005 (even calls) and 0.020 (odd ones).
  CallResiduals r;
  r.by_rank = {std::vector<double>(t.ranks[0].mpi_calls.size(), 0.3), std::vector<double>(t.ranks[1].mpi_calls.size())};
  REQUIRE(r.by_rank[1].size() == 103);  // Init, 101 receives, Finalize
  for (std::size_t i = 0; i < r.by_rank[1].size(); ++i) r.by_rank[1][i] = i % 2 ? 0.020 : 0.005;
  Platform target = c.platform;
  target.mpi.typical_excess->latency = 0.002;
  const std::optional<CallResiduals> moved = residuals_with_typical_network(t, r, c.platform, target);
  REQUIRE(moved);
  CHECK(moved->by_rank[0] == r.by_rank[0]);
  CHECK(moved->by_rank[1][0] == r.by_rank[1][0]);
  CHECK(moved->by_rank[1][102] == r.by_rank[1][102]);
  for (std::size_t i = 1; i <= 101; ++i) CHECK(moved->by_rank[1][i] == Approx(i % 2 ? 0.012 : 0.0).margin(1e-12));
  // Of these residuals, the source's typical excess: 50 receives of 0.005 s (all of it) and 51 of
  // 0.020 s (0.010 s each); the report's platform line gives it.
  CHECK(typical_excess_seconds(t, r, c.platform) == Approx(50 * 0.005 + 51 * 0.010).margin(1e-12));
  // The other way, every receive gains 0.008 s; the latency factor scales the excess too.
  const auto back = residuals_with_typical_network(t, *moved, target, c.platform);
  REQUIRE(back);
  CHECK(back->by_rank[1][1] == Approx(0.020).margin(1e-12));
  Platform slower = c.platform;
  slower.latency_factor = 2;
  const auto doubled = residuals_with_typical_network(t, r, c.platform, slower);
  REQUIRE(doubled);
  CHECK(doubled->by_rank[1][2] == Approx(0.005 + 0.010).margin(1e-12));
  // Without the typical excess a calibrated platform has nothing to move here (no collectives; its
  // per-message overheads and size factors say its network is not typed in numbers).
  Platform typed_source = c.platform, typed_target = target;
  typed_source.mpi.typical_excess.reset(), typed_target.mpi.typical_excess.reset();
  const auto none = residuals_with_typical_network(t, r, typed_source, typed_target);
  CHECK((!none || none->by_rank == r.by_rank));
}

// The eager copy (LogGOPS's O), by hand. Rank 0 sends 40 messages each of 8 B, 1 KiB and 32 KiB to
// rank 1, which posts each receive only after the send has returned (the sends went eagerly); every
// send takes 1 us + 1 ns per byte. The line through the fastest send per size class: 1 ns/B, fitted
// up to 32 KiB.
namespace {

const std::uint64_t kCopySizes[] = {8, 1024, 32768};

Trace eager_copy_trace() {
  test::HandTrace h(2);
  for (Rank r : {0u, 1u}) h.init(r, 0, 1);
  double t0 = 10;
  for (std::uint64_t bytes : kCopySizes)
    for (int i = 0; i < 40; ++i, t0 += 0.01) {
      h.send(0, t0, t0 + 1e-6 + 1e-9 * static_cast<double>(bytes), 1, 0, bytes);
      h.recv(1, t0 + 0.001, t0 + 0.001 + 2e-6, 0, 0, bytes);
    }
  for (Rank r : {0u, 1u}) h.finalize(r, 30, 31);
  return h.finish();
}

}  // namespace

TEST_CASE("the eager copy: what a byte more costs an eager send, by hand, and what a platform change does to it",
          "[platform][calibrate]") {
  const Trace t = eager_copy_trace();
  const Calibration c = calibrate(t);
  INFO(calibration_text(c));
  REQUIRE(c.eager_threshold >= 32768);
  REQUIRE(c.platform.mpi.eager_copy);
  CHECK(c.platform.mpi.eager_copy->per_byte == Approx(1e-9).epsilon(1e-6));
  CHECK(c.platform.mpi.eager_copy->up_to == 32768);
  CHECK_THAT(calibration_text(c), Catch::Contains("eager copy       1024 ns/KiB per eager send, up to 32768 bytes"));
  test::TempDir dir;
  std::ofstream(dir / "c.xml") << platform_xml(c.platform);
  const Platform loaded = load_platform(dir / "c.xml");
  REQUIRE(loaded.mpi.eager_copy);
  CHECK(loaded.mpi.eager_copy->per_byte == Approx(1e-9).epsilon(1e-8));
  CHECK(loaded.mpi.eager_copy->up_to == 32768);
  // Every send's residual 20 us (by hand): on a target that copies 0.5 ns/B up to 1 KiB and sends
  // 32 KiB by rendezvous, an 8 B send loses 4 ns, a 1 KiB one 512 ns, a 32 KiB one all of its copy
  // (32.768 us) but at most its residual (20 us). Receives, Init and Finalize keep theirs.
  CallResiduals r;
  r.by_rank = {std::vector<double>(t.ranks[0].mpi_calls.size(), 20e-6),
               std::vector<double>(t.ranks[1].mpi_calls.size(), 0.5)};
  REQUIRE(r.by_rank[0].size() == 122);  // Init, 120 sends, Finalize
  Platform target = c.platform;
  target.mpi.eager_threshold = 1024;
  target.mpi.eager_copy = MpiCosts::EagerCopy{0.5e-9, 1024};
  const std::optional<CallResiduals> moved = residuals_with_typical_network(t, r, c.platform, target);
  REQUIRE(moved);
  CHECK(moved->by_rank[1] == r.by_rank[1]);
  CHECK(moved->by_rank[0][0] == r.by_rank[0][0]);
  CHECK(moved->by_rank[0][121] == r.by_rank[0][121]);
  const double expected[] = {20e-6 - 4e-9, 20e-6 - 512e-9, 0.0};
  for (std::size_t i = 1; i <= 120; ++i) CHECK(moved->by_rank[0][i] == Approx(expected[(i - 1) / 40]).margin(1e-15));
  // Of the residuals, the source's copy: 40 x (8 ns + 1024 ns + 20 us, all of the 32 KiB sends').
  CHECK(typical_excess_seconds(t, r, c.platform) == Approx(40 * (8e-9 + 1024e-9 + 20e-6)).margin(1e-15));
  // A target that sends everything eagerly but copies larger messages no more than 1 KiB: the
  // 32 KiB send keeps 20 us - 32.768 us + 0.512 us, at least nothing.
  target.mpi.eager_threshold = 65536;
  const auto eager = residuals_with_typical_network(t, r, c.platform, target);
  REQUIRE(eager);
  CHECK(eager->by_rank[0][81] == 0.0);
  // Halving the bandwidth doubles the target's copy: the 1 KiB send then keeps all of its residual.
  target.bandwidth_factor = 0.5;
  const auto slower = residuals_with_typical_network(t, r, c.platform, target);
  REQUIRE(slower);
  CHECK(slower->by_rank[0][41] == Approx(20e-6).margin(1e-15));
  // Without the copy and the excess a calibrated platform has nothing to move.
  Platform typed_source = c.platform, typed_target = target;
  typed_source.mpi.eager_copy.reset(), typed_target.mpi.eager_copy.reset();
  typed_source.mpi.typical_excess.reset(), typed_target.mpi.typical_excess.reset();
  const auto none = residuals_with_typical_network(t, r, typed_source, typed_target);
  CHECK((!none || none->by_rank == r.by_rank));
}

namespace {

// Two ranks meeting in `instances` MPI_Allreduce calls of `bytes` (one round each), one a second
// from 10 s on: rank 0 enters at its start, rank 1 2 us later, both leave 10 us after the start.
Trace allreduce_pair(std::uint64_t bytes, int instances = 1) {
  test::HandTrace h(2);
  for (Rank r : {0u, 1u}) h.init(r, 0, 1);
  for (int k = 0; k < instances; ++k) {
    h.collective(0, 10 + k, 10 + k + 10e-6, "MPI_Allreduce", h.world(), kNone, bytes);
    h.collective(1, 10 + k + 2e-6, 10 + k + 10e-6, "MPI_Allreduce", h.world(), kNone, bytes);
  }
  for (Rank r : {0u, 1u}) h.finalize(r, 30, 31);
  return h.finish();
}

// A calibrated network (not typed in numbers): L = 5 us, o = 1 us, 1 GB/s; a round of 0 bytes 5 us.
Platform calibrated_source() {
  Platform source = contention_free_crossbar(2, 5e-6, 1e9, 1e-6, 65536);
  source.mpi.send_overhead = 1e-6;
  return source;
}

}  // namespace

// A collective's rounds on a calibrated network, by hand. A member's own cost in a collective (beyond
// its partners' lateness) is the rounds' work, so it scales with their price, rounds x (L + b/B).
TEST_CASE("a calibrated network's collective rounds: a member's own cost scales with their price, by hand",
          "[platform]") {
  const Trace t = allreduce_pair(0);
  const Platform source = calibrated_source();
  Platform target = source;
  target.latency = 1e-6;
  REQUIRE_FALSE(typed_network(source));
  CallResiduals r;
  r.by_rank = {{0, 4e-6, 0}, {0, 7e-6, 0}};
  // To the 1 us network (a round of 1 us): 4 and 7 us become 0.8 and 1.4 us; all 11 us are the
  // network's part; back to the 5 us one, 7 us become 35 us.
  const std::optional<CallResiduals> moved = residuals_with_typical_network(t, r, source, target);
  REQUIRE(moved);
  CHECK(moved->by_rank[0][1] == Approx(0.8e-6).margin(1e-15));
  CHECK(moved->by_rank[1][1] == Approx(1.4e-6).margin(1e-15));
  CHECK(typical_excess_seconds(t, r, source) == Approx(11e-6).margin(1e-15));
  CHECK(residuals_with_typical_network(t, r, target, source)->by_rank[1][1] == Approx(35e-6).margin(1e-15));
  // Towards a network typed in numbers (L = 1 us, no overheads) the own cost goes and the typed part
  // comes: its latency for the round's message sent, in both members.
  const Platform typed = contention_free_crossbar(2, 1e-6, 1e9, 0, 65536);
  REQUIRE(typed_network(typed));
  const auto to_typed = residuals_with_typical_network(t, r, source, typed);
  CHECK(to_typed->by_rank[1][1] == Approx(1e-6).margin(1e-15));
  CHECK(to_typed->by_rank[0][1] == Approx(1e-6).margin(1e-15));
  // A calibration that fitted the latency to 0 prices a round by its bytes alone (here 1000 bytes at
  // 1 GB/s: 1 us, 2 us on the target), which says nothing of its work: the own cost stays.
  const Trace bytes = allreduce_pair(1000);
  Platform unseparated = source;
  unseparated.latency = 0;
  CHECK(residuals_with_typical_network(bytes, r, unseparated, target)->by_rank[1][1] == Approx(7e-6).margin(1e-15));
  CHECK(typical_excess_seconds(bytes, r, unseparated) == 0);
  CHECK(residuals_with_typical_network(bytes, r, source, target)->by_rank[1][1] ==
        Approx(7e-6 * 2e-6 / 6e-6).margin(1e-15));  // with the latency: 5 + 1 us -> 1 + 1 us
}

// The rounds' work is what the instances of a call path on a rank do alike: one instance's own cost
// beyond their median (its process lost the core) stays as measured instead of scaling.
TEST_CASE("a collective's own cost beyond its call path's median stays, by hand", "[platform]") {
  const Trace t = allreduce_pair(0, 3);
  const Platform source = calibrated_source();
  Platform target = source;
  target.latency = 1e-6;  // the round's price 5 us -> 1 us
  CallResiduals r;
  r.by_rank = {{0, 0, 0, 0, 0}, {0, 4e-6, 40e-6, 4e-6, 0}};
  const std::optional<CallResiduals> moved = residuals_with_typical_network(t, r, source, target);
  REQUIRE(moved);
  CHECK(moved->by_rank[1][1] == Approx(0.8e-6).margin(1e-15));
  CHECK(moved->by_rank[1][2] == Approx(36.8e-6).margin(1e-15));  // 40 us - 4 us + 0.8 us
  CHECK(moved->by_rank[1][3] == Approx(0.8e-6).margin(1e-15));
  CHECK(typical_excess_seconds(t, r, source) == Approx(12e-6).margin(1e-15));
}

// A network typed in numbers (Dimemas's latency, a ping-pong's one-way time) holds the processors'
// work for a message too: per message a call sends its latency, per message it receives its bytes
// over the bandwidth. Between two typed networks that share of a call's residual scales with them.
TEST_CASE("two networks typed in numbers: the share of each call's residual their numbers hold scales, by hand",
          "[platform]") {
  const Trace t = eager_copy_trace();  // rank 0: 40 sends each of 8 B, 1 KiB, 32 KiB; rank 1 receives
  const Platform source = contention_free_crossbar(2, 1e-6, 1e9, 0, 65536);
  const Platform target = contention_free_crossbar(2, 4e-6, 0.5e9, 0, 65536);
  REQUIRE(typed_network(source));
  CallResiduals r;
  r.by_rank = {std::vector<double>(t.ranks[0].mpi_calls.size(), 20e-6),
               std::vector<double>(t.ranks[1].mpi_calls.size(), 0.5)};
  const std::optional<CallResiduals> moved = residuals_with_typical_network(t, r, source, target);
  REQUIRE(moved);
  // A send holds 1 us of its 20 us (the source's latency), which becomes 4 us; a receive holds its
  // bytes / 1 GB/s, which doubles at 0.5 GB/s. Init and Finalize keep theirs.
  for (Rank rank : {0u, 1u}) {
    CHECK(moved->by_rank[rank].front() == r.by_rank[rank].front());
    CHECK(moved->by_rank[rank].back() == r.by_rank[rank].back());
  }
  for (std::size_t i = 1; i <= 120; ++i) {
    CHECK(moved->by_rank[0][i] == Approx(23e-6).margin(1e-15));
    CHECK(moved->by_rank[1][i] == Approx(0.5 + static_cast<double>(kCopySizes[(i - 1) / 40]) * 1e-9).margin(1e-15));
  }
  CHECK(typical_excess_seconds(t, r, source) == Approx(120 * 1e-6 + 40 * (8 + 1024 + 32768) * 1e-9).margin(1e-15));
  // A call holds at most its residual: a send of 0.4 us holds 0.4 us, which becomes 1.6 us. A model
  // that explains every call (no residual, the generators' exact replays) stays exact.
  r.by_rank[0].assign(r.by_rank[0].size(), 0.4e-6);
  CHECK(residuals_with_typical_network(t, r, source, target)->by_rank[0][5] == Approx(1.6e-6).margin(1e-15));
  r.by_rank[0].assign(r.by_rank[0].size(), 0.0);
  CHECK(residuals_with_typical_network(t, r, source, target)->by_rank[0][5] == 0.0);
  // An infinitely fast network takes the share away; a latency factor scales it.
  r.by_rank[0].assign(r.by_rank[0].size(), 20e-6);
  CHECK(residuals_with_typical_network(t, r, source, infinitely_fast_network(source))->by_rank[0][5] ==
        Approx(19e-6).margin(1e-12));
  Platform slower = source;
  slower.latency_factor = 3;
  CHECK(residuals_with_typical_network(t, r, source, slower)->by_rank[0][5] == Approx(22e-6).margin(1e-15));
}

// The platform oracle's halo over shared memory sends 4 KiB messages only (512 doubles each way,
// imbalance.c), by a rendezvous there that the fit cannot tell from a slower network. A platform
// change from the network fitted on that one size (calibrated for the run or from its file) is
// warned about, with the cure; not when the traced machine is described, nor without a platform change.
TEST_CASE("a platform change from a network fitted on one message size is warned about", "[platform][scorep]") {
  const fs::path halo = test::real_trace("platform/halo_vader_A") / "traces.otf2";
  const Trace measured = read_otf2(halo);
  const Calibration fit = calibrate(measured);
  // Its latency as the warning gives it: the fit's, whether calibrated for the run or read from its file.
  const std::string latency = fmt::format("its fastest transfer {:.3f} us as latency", fit.latency * 1e6);
  const auto warned = [&](const std::string& yaml) {
    const Scenario s = parse_scenario(
        fmt::format("wisp: 1\ntrace: \"{}\"\nreplay: {{interval: false}}\n{}", halo.string(), yaml), "s.yaml");
    for (const std::string& w : run_identity(s, measured).warnings)
      if (w.find("the platform change starts from a network fitted on one message size (4096 bytes, " + latency) !=
              std::string::npos &&
          w.find("describe the traced machine too, `platform: {file: ...}`") != std::string::npos)
        return true;
    return false;
  };
  CHECK(warned("transforms:\n  - platform: {latency_factor: 10}\n"));
  // The calibration written as a file keeps what its network was fitted on.
  TempDir dir;
  std::ofstream(dir / "halo.xml") << platform_xml(fit.platform);
  CHECK(load_platform(dir / "halo.xml").network_one_size == 4096);
  CHECK(warned(fmt::format("platform: {{file: \"{}\"}}\ntransforms:\n  - platform: {{latency_factor: 10}}\n",
                           (dir / "halo.xml").string())));
  CHECK_FALSE(warned("platform: {latency: 1e-6, bandwidth: 1e10}\ntransforms:\n  - platform: {latency_factor: 10}\n"));
  CHECK_FALSE(warned("transforms:\n  - scale: {region: work, factor: 0.5}\n"));
}
