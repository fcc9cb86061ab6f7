// End-to-end: wisp calibrate and wisp simulate on generated traces.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/platform.hpp"

using namespace wisp;
using namespace wisp::test;

namespace {
std::string q(const std::filesystem::path& p) { return fmt::format("'{}'", p.string()); }
}  // namespace

TEST_CASE("wisp simulate writes the simulated trace and compares runtimes", "[replay][cli]") {
  TempDir dir;
  REQUIRE(run_wisp("generate halo --dims 2x2 --steps 4 -o " + q(dir / "halo")).exit_code == 0);
  // The model's platform (its latency, bandwidth, overhead, eager limit) as XML; analytic collectives.
  std::ofstream(dir / "model.xml") << platform_xml(contention_free_crossbar(4, 1e-6, 1e10, 1e-6, 65536));
  const auto r = run_wisp("simulate " + q(dir / "halo") + " --platform " + q(dir / "model.xml") +
                          " --coll-algo analytic -o " + q(dir / "sim"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("rank"));
  CHECK_THAT(r.out, Catch::Contains("total"));
  CHECK_THAT(r.out, Catch::Contains("+0.00 %"));
  const Trace in = read_otf2(dir / "halo"), out = read_otf2(dir / "sim");
  CHECK(out.event_count() == in.event_count());
  CHECK(out.end_time() == Approx(in.end_time()).epsilon(1e-6));
  CHECK(out.defs.creator == "wisp simulate");

  // Existing output needs --force; bad options are one-line errors.
  const auto again = run_wisp("simulate " + q(dir / "halo") + " -o " + q(dir / "sim"));
  CHECK(again.exit_code == 1);
  const auto algo = run_wisp("simulate " + q(dir / "halo") + " --coll-algo bcast=pairwise -o " + q(dir / "x"));
  CHECK(algo.exit_code == 1);
  CHECK_THAT(algo.err, Catch::Contains("wisp: error: --coll-algo 'bcast=pairwise': bcast has no pairwise algorithm"));
  const auto platform =
      run_wisp("simulate " + q(dir / "halo") + " --platform " + q(dir / "no.xml") + " -o " + q(dir / "x"));
  CHECK(platform.exit_code == 1);
  CHECK_THAT(platform.err, Catch::Contains("no such file"));
}

TEST_CASE("wisp simulate --export: both formats beside the simulated trace; bad requests write nothing",
          "[replay][cli][export]") {
  TempDir dir;
  REQUIRE(run_wisp("generate halo --dims 2x2 --steps 2 -o " + q(dir / "halo")).exit_code == 0);
  const auto r = run_wisp("simulate " + q(dir / "halo") + " --costs model -o " + q(dir / "sim") + " --export goal " +
                          q(dir / "h.goal") + " --export smpi-ti " + q(dir / "ti") + " --export-collectives messages");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("goal operations") && Catch::Contains("dependencies"));
  CHECK(std::filesystem::exists(dir / "h.goal"));
  CHECK(std::filesystem::exists(dir / "ti" / "rank-3.txt"));
  CHECK(std::filesystem::exists(dir / "sim"));

  const auto format = run_wisp("simulate " + q(dir / "halo") + " -o " + q(dir / "x") + " --export vampir v");
  CHECK(format.exit_code == 1);
  CHECK_THAT(format.err, Catch::Contains("--export vampir: unknown format (expected smpi-ti or goal)"));
  const auto missing =
      run_wisp("simulate " + q(dir / "halo") + " -o " + q(dir / "x") + " --export goal " + q(dir / "no" / "h.goal"));
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("does not exist"));
  const auto exists =
      run_wisp("simulate " + q(dir / "halo") + " -o " + q(dir / "x") + " --export smpi-ti " + q(dir / "ti"));
  CHECK(exists.exit_code == 1);
  CHECK_THAT(exists.err, Catch::Contains("exists and is not empty"));
  CHECK(!std::filesystem::exists(dir / "x"));  // refused before anything was written
}

// Per timeline (pid) and lane (tid): the durations of `work` and the waits in MPI_Barrier [µs].
struct BarrierLanes {
  std::map<int, std::map<int, std::vector<double>>> work, wait;
};

BarrierLanes barrier_lanes(const nlohmann::json& doc) {
  BarrierLanes b;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int pid = e["pid"], tid = e["tid"];
    if (e["name"] == "work") b.work[pid][tid].push_back(e["dur"].get<double>());
    if (e["name"] == "MPI_Barrier")
      b.wait[pid][tid].push_back(
          e.contains("args") && e["args"].contains("wait_us") ? e["args"]["wait_us"].get<double>() : 0.0);
  }
  return b;
}

TEST_CASE("wisp simulate --chrome-trace: the measured and the simulated timelines with their waits",
          "[replay][cli][chrome]") {
  TempDir dir;
  // Static imbalance on 2 ranks: rank 0 works e less, rank 1 e more than the balanced work, then a
  // barrier; rank 0 waits in every barrier for the difference of the two works (by hand).
  REQUIRE(
      run_wisp("generate imbalance --ranks 2 --iterations 4 --mode static --percent 20 -o " + q(dir / "t")).exit_code ==
      0);
  const auto r =
      run_wisp("simulate " + q(dir / "t") + " -o " + q(dir / "sim") + " --chrome-trace " + q(dir / "c.json"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("wrote " + (dir / "c.json").string()));
  std::ifstream in(dir / "c.json");
  const auto doc = nlohmann::json::parse(in);
  std::map<int, std::string> processes;
  for (const auto& e : doc["traceEvents"])
    if (e["name"] == "process_name") processes[e["pid"].get<int>()] = e["args"]["name"];
  CHECK(processes == std::map<int, std::string>{{1, "measured"}, {2, "simulated"}});
  const BarrierLanes b = barrier_lanes(doc);
  for (int pid : {1, 2}) {
    INFO("timeline " << processes[pid]);
    const auto& work = b.work.at(pid);
    const auto& wait = b.wait.at(pid);
    REQUIRE(work.at(0).size() == 4);
    REQUIRE(work.at(1).size() == 4);
    REQUIRE(wait.at(0).size() == 4);
    for (std::size_t k = 0; k < 4; ++k) {
      const double difference = work.at(1)[k] - work.at(0)[k];
      CHECK(difference > 0);
      CHECK(wait.at(0)[k] == Approx(difference).epsilon(0.01));
      CHECK(wait.at(1)[k] < 0.01 * difference);
    }
  }
  // A file in a missing directory is a one-line error before anything is written.
  const auto bad =
      run_wisp("simulate " + q(dir / "t") + " -o " + q(dir / "sim2") + " --chrome-trace " + q(dir / "no" / "c.json"));
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("does not exist"));
  CHECK_FALSE(std::filesystem::exists(dir / "sim2"));
}

TEST_CASE("wisp calibrate prints the fit and writes a loadable platform", "[replay][cli]") {
  TempDir dir;
  REQUIRE(run_wisp("generate wavefront --px 2 --py 2 --iterations 2 --bytes 100000 -o " + q(dir / "w")).exit_code == 0);
  const auto r = run_wisp("calibrate " + q(dir / "w") + " -o " + q(dir / "p.xml"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("latency L"));
  CHECK_THAT(r.out, Catch::Contains("bandwidth B"));
  CHECK_THAT(r.out, Catch::Contains("residual"));
  const Platform p = load_platform(dir / "p.xml");
  CHECK(p.mpi.overheads.count("MPI_Send") == 1);
  CHECK(run_wisp("calibrate " + q(dir / "w") + " -o " + q(dir / "p.xml")).exit_code == 1);  // exists
  // Default platform of simulate is the calibration.
  const auto s = run_wisp("simulate " + q(dir / "w") + " -o " + q(dir / "sim"));
  CHECK(s.exit_code == 0);
  CHECK_THAT(s.out, Catch::Contains("calibrated from the trace"));
}

TEST_CASE("wisp simulate: trace-anchored by default, --costs model, the identity error and its warning",
          "[replay][cli][costs]") {
  TempDir dir;
  REQUIRE(run_wisp("generate imbalance --ranks 4 --iterations 4 -o " + q(dir / "t")).exit_code == 0);
  const auto anchored = run_wisp("simulate " + q(dir / "t") + " -o " + q(dir / "a"));
  INFO(anchored.err);
  REQUIRE(anchored.exit_code == 0);
  CHECK_THAT(anchored.out, Catch::Contains("costs        trace-anchored"));
  CHECK_THAT(anchored.out, Catch::Contains("identity error +0.00 %"));
  CHECK_THAT(anchored.out, Catch::Contains("residuals (traced MPI time the model does not explain)"));
  const auto model = run_wisp("simulate " + q(dir / "t") + " -o " + q(dir / "m") + " --costs model");
  REQUIRE(model.exit_code == 0);
  CHECK_THAT(model.out, Catch::Contains("costs        model only"));
  const auto bad = run_wisp("simulate " + q(dir / "t") + " -o " + q(dir / "b") + " --costs cheap");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--costs"));

  // A real oversubscribed run: model only misses its runtime by more than 5 % and says so in one line.
  const auto sweep = test::real_trace("apps/cloverleaf_bm_short_4r");
  const auto off = run_wisp("simulate " + q(sweep) + " -o " + q(dir / "s") + " --costs model");
  REQUIRE(off.exit_code == 0);
  CHECK_THAT(off.err, Catch::Contains("[wisp] warning: the identity replay is -") &&
                          Catch::Contains("use trace-anchored costs"));
  const auto on = run_wisp("simulate " + q(sweep) + " -o " + q(dir / "s2"));
  REQUIRE(on.exit_code == 0);
  CHECK_THAT(on.out, Catch::Contains("identity error +0.00 %"));
  CHECK_THAT(on.err, !Catch::Contains("identity replay is"));
}

// The Chrome trace of a real run (CloverLeaf, 2 ranks, 61 k events): on every track a slice either
// ends before the next starts or contains it; none overlaps the next partially (rounding start and
// duration separately once made 1 ns overlaps). Times compared in whole nanoseconds.
TEST_CASE("wisp simulate --chrome-trace: no partially overlapping slices on a track", "[replay][cli][chrome]") {
  TempDir dir;
  const auto trace = wisp::test::real_trace("apps/cloverleaf_2r") / "traces.otf2";
  const auto r = run_wisp("simulate " + q(trace) + " -o " + q(dir / "sim") + " --chrome-trace " + q(dir / "c.json"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(std::ifstream(dir / "c.json"));
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> tracks;  // (pid, tid) -> [start, end)
  for (const auto& e : doc["traceEvents"])
    if (e.value("ph", "") == "X") {
      const long long start = std::llround(e["ts"].get<double>() * 1000);
      tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(
          start, start + std::llround(e["dur"].get<double>() * 1000));
    }
  REQUIRE(tracks.size() >= 4);
  std::size_t slices = 0, overlaps = 0;
  for (auto& [track, list] : tracks) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<long long> open;  // ends of the enclosing slices
    for (const auto& [start, end] : list) {
      while (!open.empty() && open.back() <= start) open.pop_back();
      if (!open.empty() && end > open.back()) ++overlaps;
      open.push_back(end);
      ++slices;
    }
  }
  CHECK(slices > 10000);
  CHECK(overlaps == 0);
}
