// Every ready scenario in scenarios/ evaluated through the library (load_scenario, load_trace,
// evaluate_point / run_sweep, the report's JSON), with the key figures checked against the
// generators' analytic model or the wait-path analysis — values derived independently of the replay — and
// `wisp run` itself as a subprocess for its output files and every error with its message.
#include <sys/wait.h>
#include <catch2/catch.hpp>

#include <cerrno>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <fstream>

#include "helpers.hpp"
#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/driver/sweep_run.hpp"
#include "wisp/generate/command_line.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/report/run_report.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/trace_source.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;
using nlohmann::json;
using wisp::test::run_wisp;
using wisp::test::TempDir;

namespace {

const std::string kScenarios = std::string(WISP_SOURCE_DIR) + "/scenarios/";

// report.json of a scenario, evaluated in this process.
json run_json(const std::string& file, const TempDir& dir, int jobs = 1) {
  const Scenario s = load_scenario(file);
  const ScenarioTrace in = load_trace(s);
  if (s.sweep.empty()) return point_json(s, in.source, evaluate_point(s, in.trace));
  std::filesystem::create_directories(dir / "sweep");
  return sweep_json(s, in.source, run_sweep(s, in.trace, jobs, dir / "sweep"));
}

// The same through `wisp run --json` in a subprocess, which also writes the output directory.
json cli_json(const std::string& scenario, const TempDir& dir, const std::string& extra = "") {
  const auto r = run_wisp("-q run --json -o " + (dir / "out").string() + " " + extra + " " + scenario);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::string write_scenario(const TempDir& dir, const std::string& name, const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

double metric(const json& callpaths, const std::string& metric, const std::string& callpath, const char* field) {
  for (const auto& row : callpaths)
    if (row["metric"] == metric && row["callpath"] == callpath) return row[field].get<double>();
  return 0;
}

// Critical-path imbalance of `work` on the generated trace (the wait-path analysis).
double work_imbalance(const Trace& t) {
  const WaitPathAnalysis a = analyze_wait_paths(t);
  const MetricTable table = metric_table(a);
  const auto cp = t.defs.find_region("work");
  double sum = 0;
  for (const auto& r : table.records)
    if (table.metrics[r.metric] == "critical_path_imbalance" && r.callpath != kNone &&
        t.defs.callpaths[r.callpath].region == *cp)
      sum += r.value;
  return sum;
}

}  // namespace

TEST_CASE("scenario imbalance-rebalance: static, dynamic and mixed balance to the model's balanced run") {
  for (const char* mode : {"static", "dynamic", "mixed"}) {
    INFO(mode);
    TempDir dir;
    const auto file = write_scenario(dir, "s.yaml",
                                     fmt::format(R"(wisp: 1
trace: {{generate: "imbalance --ranks 32 --iterations 320 --mode {}"}}
transforms:
  - rebalance: {{region: work}}
)",
                                                 mode));
    const json j = run_json(std::string(mode) == "dynamic" ? kScenarios + "imbalance-rebalance.yaml" : file, dir);
    gen::ImbalanceOptions o;
    o.mode = mode;
    const double balanced = gen::imbalance_balanced_runtime(o);  // the model: 16.002927 s
    CHECK(balanced == Approx(0.001001 + 320 * 0.050006 + 0.000006).epsilon(1e-12));
    CHECK(j["runtime"]["scenario"].get<double>() == Approx(balanced).epsilon(0.01));
    CHECK(j["runtime"]["measured"].get<double>() == Approx(1.25 * balanced).epsilon(1e-6));
    // The gain matches work()'s critical-path imbalance (the wait-path analysis on the measured trace).
    const double imbalance = work_imbalance(gen::generate_imbalance(o));
    CHECK(imbalance == Approx(0.25 * balanced).epsilon(0.05));
    CHECK(j["gain"]["seconds"].get<double>() == Approx(imbalance).epsilon(0.05));
    CHECK(std::abs(j["runtime"]["identity_error"].get<double>()) < 0.001);
  }
}

TEST_CASE("scenario halo-rebalance: the generator's balanced variant, waits fall per call path") {
  TempDir dir;
  const json j = cli_json(kScenarios + "halo-rebalance.yaml", dir);
  gen::HaloOptions o;
  o.overload_ranks = {0, 1, 2, 3};
  o.overload = 0.5;
  o.balanced = true;
  const double balanced = gen::generate_halo(o).end_time();
  CHECK(j["runtime"]["scenario"].get<double>() == Approx(balanced).epsilon(0.01));
  const json& rows = j["callpaths"];
  // Late Sender in MPI_Waitall and Wait at N x N in MPI_Allreduce fall; so do their delay costs.
  CHECK(metric(rows, "mpi_latesender", "main/MPI_Waitall", "before") > 0.1);
  CHECK(metric(rows, "mpi_latesender", "main/MPI_Waitall", "after") <
        0.1 * metric(rows, "mpi_latesender", "main/MPI_Waitall", "before"));
  CHECK(metric(rows, "delay_latesender", "main/compute", "after") <
        0.1 * metric(rows, "delay_latesender", "main/compute", "before"));
  CHECK(metric(rows, "time", "main/compute", "after") ==
        Approx(metric(rows, "time", "main/compute", "before")).epsilon(1e-6));
  std::ifstream txt(dir / "out" / "report.txt");
  CHECK(txt.good());
  CHECK(std::filesystem::exists(dir / "out" / "scenario-trace" / "traces.otf2"));
}

TEST_CASE("scenario mpmd-move-sweep: a U over the moved fraction with its minimum at 1/3") {
  TempDir dir;
  const json j = cli_json(kScenarios + "mpmd-move-sweep.yaml", dir, "--jobs 2");
  const std::vector<double> fractions{0, 0.1, 0.2, 0.3, 0.3333333333, 0.4, 0.5, 0.6};
  REQUIRE(j["points"].size() == fractions.size());
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    gen::MpmdOptions o;
    o.steps = 40;
    o.particle_work = 0.04;
    o.mesh_work = 0.12;
    o.shift = fractions[i];  // the generator's model with the work moved
    INFO(fractions[i]);
    CHECK(j["points"][i]["runtime"]["scenario"].get<double>() ==
          Approx(gen::generate_mpmd(o).end_time()).epsilon(0.001));
  }
  CHECK(j["best"] == 4);
  std::ifstream csv(dir / "out" / "sweep.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header ==
        "point,transforms[0].fraction,measured,identity,scenario,gain_seconds,gain_percent,gain_low,gain_high,error");
}

// The model's runtime of the halo of halo-bandwidth-sweep and halo-one-factor-sweep on a network of
// latency 1 us x l and bandwidth 10 GB/s x b.
double halo_model(double l, double b) {
  gen::HaloOptions o;
  o.dims = {4, 2};
  o.steps = 40;
  o.work = 0.001;
  o.boundary_work = 0;
  o.bytes = 2097152;
  o.model.bandwidth = 1e10 * b;
  o.model.latency = 1e-6 * l;
  return gen::generate_halo(o).end_time();
}

TEST_CASE("scenario halo-bandwidth-sweep: every point equals the model at that latency and bandwidth") {
  TempDir dir;
  const json j = run_json(kScenarios + "halo-bandwidth-sweep.yaml", dir, 2);
  const std::vector<double> bandwidth{0.25, 0.5, 1, 2, 4}, latency{1, 10};
  REQUIRE(j["points"].size() == 10);
  std::size_t i = 0;
  for (double b : bandwidth)
    for (double l : latency) {
      INFO("bandwidth x" << b << ", latency x" << l);
      CHECK(j["points"][i++]["runtime"]["scenario"].get<double>() == Approx(halo_model(l, b)).epsilon(0.001));
    }
}

TEST_CASE("scenario halo-one-factor-sweep: one axis at a time, each point the model") {
  TempDir dir;
  const json j = run_json(kScenarios + "halo-one-factor-sweep.yaml", dir, 2);
  REQUIRE(j["points"].size() == 6);  // 4 latencies + 2 bandwidths, not 4 x 2
  CHECK(j["design"] == "one-at-a-time");
  const std::vector<std::pair<double, double>> points{{0.5, 1}, {1, 1}, {2, 1}, {10, 1}, {1, 0.5}, {1, 2}};
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [l, b] = points[i];
    INFO("latency x" << l << ", bandwidth x" << b);
    const json& values = j["points"][i]["values"];
    CHECK(values["transforms[0].latency_factor"].is_null() == (i >= 4));  // kept as the scenario sets it
    CHECK(values["transforms[0].bandwidth_factor"].is_null() == (i < 4));
    CHECK(j["points"][i]["runtime"]["scenario"].get<double>() == Approx(halo_model(l, b)).epsilon(0.001));
  }
}

TEST_CASE("scenario halo-zipped-networks: one point per position of the axes, each the model") {
  TempDir dir;
  const json j = run_json(kScenarios + "halo-zipped-networks.yaml", dir, 2);
  REQUIRE(j["points"].size() == 3);  // not 3 x 3
  CHECK(j["design"] == "zipped");
  const std::vector<std::pair<double, double>> points{{1, 1}, {3.5, 0.77}, {10, 0.5}};
  for (std::size_t i = 0; i < points.size(); ++i)
    CHECK(j["points"][i]["runtime"]["scenario"].get<double>() ==
          Approx(halo_model(points[i].first, points[i].second)).epsilon(0.001));
}

TEST_CASE("sweep designs: zipped axes must be as long as each other; an unknown design is named") {
  TempDir dir;
  std::string yaml = read_file(kScenarios + "halo-zipped-networks.yaml").value();
  // Axes of different lengths cannot be zipped; an unknown design is named.
  const auto bad = [&](const std::string& sweep) {
    return [&, sweep] { parse_scenario(yaml.substr(0, yaml.find("sweep:")) + sweep, dir / "bad.yaml"); };
  };
  CHECK_THROWS_WITH(bad("sweep:\n  design: zipped\n  platform.latency_factor: [1, 2]\n"
                        "  platform.bandwidth_factor: [1]\n")(),
                    Catch::Contains("'platform.latency_factor' has 2 values, 'platform.bandwidth_factor' 1"));
  CHECK_THROWS_WITH(bad("sweep:\n  design: latin\n  platform.latency_factor: [1, 2]\n")(),
                    Catch::Contains("unknown sweep design 'latin'"));
  CHECK_THROWS_WITH(bad("sweep:\n  design: zipped\n")(), Catch::Contains("at least one axis"));
}

// The network typed in: shared memory's microbenchmark numbers in, TCP's out; the generator's model
// on TCP's numbers is the expected run.
TEST_CASE("scenario halo-network-numbers: the run equals the model on the typed-in network") {
  TempDir dir;
  const json j = run_json(kScenarios + "halo-network-numbers.yaml", dir);
  const std::string halo = "halo --dims 4x2 --steps 200 --work 1e-4 --boundary-work 0 --bytes 4096 --overhead 0";
  const Trace shared_memory = gen::generate_from_command_line(halo + " --latency 0.265e-6 --bandwidth 10.52e9");
  CHECK(j["runtime"]["identity"].get<double>() == Approx(shared_memory.end_time()).epsilon(1e-6));
  const Trace tcp = gen::generate_from_command_line(halo + " --latency 3.528e-6 --bandwidth 7.669e9");
  CHECK(j["runtime"]["scenario"].get<double>() == Approx(tcp.end_time()).epsilon(0.001));
}

// One node or two: per step, two 4 KiB messages each way, then an 8-byte allreduce (one exchange);
// MPI_Finalize is one round of empty messages. Two nodes: rank 0's two messages share its node's up
// link (L + 2M/B), the exchange takes L + 8/B. One node: all four messages and both halves of the
// exchange share the node's inner link (Li + 4M/Bi, Li + 16/Bi). Everything else is the same.
TEST_CASE("scenario nodes-placement: one node against two, by hand") {
  TempDir dir;
  const json j = run_json(kScenarios + "nodes-placement.yaml", dir);
  const double L = 3.528e-6, B = 7.669e9, Li = 0.265e-6, Bi = 10.52e9, M = 4096, steps = 200;
  const double two_nodes = steps * (L + 2 * M / B + L + 8 / B) + L;
  const double one_node = steps * (Li + 4 * M / Bi + Li + 16 / Bi) + Li;
  CHECK(j["gain"]["seconds"].get<double>() == Approx(two_nodes - one_node).epsilon(1e-6));
  CHECK(j["placement"]["identity"]["bytes_between_hosts"] == steps * (4 * 4096 + 2 * 8));
  CHECK(j["placement"]["scenario"]["bytes_between_hosts"] == 0);
  CHECK(j["placement"]["identity"]["hosts"] == json{"node-0", "node-1"});
  CHECK(j["placement"]["scenario"]["hosts"] == json{"node-0", "node-0"});
}

TEST_CASE("zero in simulation vs MBM_all: equal without masked overheads, explained otherwise") {
  // imbalance: every rank synchronises only in barriers; zeroing work() changes no overlap of
  // MPI overhead with waiting on the critical path, so the graph and the simulation agree.
  TempDir dir;
  const auto file = write_scenario(dir, "z.yaml", R"(wisp: 1
trace: {generate: "imbalance --ranks 8 --iterations 40 --mode dynamic"}
platform: {latency: 1e-6, bandwidth: 1e10, overhead: 1e-6, contention: false}
replay: {collectives: {all: analytic}}
transforms:
  - zero: {region: work}
)");
  const json imb = run_json(file, dir);
  REQUIRE(imb["zero_versus_mbm"].size() == 1);
  CHECK(imb["zero_versus_mbm"][0]["mbm_all"].get<double>() ==
        Approx(imb["gain"]["seconds"].get<double>()).margin(1e-6));
  // halo: the PAG keeps the identity run's split of every MPI call into waiting and transfer.
  // There, rank 5's neighbours wait in MPI_Waitall for rank 5, and each Waitall is released at
  // the *start* of rank 5's last MPI_Isend: o + L + s/B (1 + 1 + 1.6384 us) counts as the
  // Waitall's own transfer. With compute() gone every rank enters MPI_Waitall after its 8
  // non-blocking calls, 1 us (= o) after rank 5 started that Isend, yet the graph still adds the
  // whole o + L + s/B from the neighbour's own enter: its longest path is 1 us per step longer
  // than the simulated run, so MBM_all is 50 steps x 1 us smaller than the simulated gain.
  // Equality needs traces where zeroing keeps every call's releasing dependency (as above).
  TempDir dir2;
  const json halo = run_json(kScenarios + "halo-zero-compute.yaml", dir2);
  REQUIRE(halo["zero_versus_mbm"].size() == 1);
  CHECK(halo["gain"]["seconds"].get<double>() == Approx(0.7).margin(1e-6));  // 50 × 14 ms of rank 5
  CHECK(halo["gain"]["seconds"].get<double>() - halo["zero_versus_mbm"][0]["mbm_all"].get<double>() ==
        Approx(50 * 1e-6).margin(1e-7));
}

TEST_CASE("scenario wavefront-tuning: scale, set and zero communication match the model") {
  TempDir dir;
  const json j = run_json(kScenarios + "wavefront-tuning.yaml", dir);
  // The model of the transformed run: the wavefront program without the border extra work,
  // sweeps of 0.5 ms in the first two iterations (16 visits) and 1 ms after, messages and
  // collectives free (L = 0, infinite bandwidth), per-call overhead unchanged.
  gen::ModelParams p;
  p.latency = 0;
  p.bandwidth = 1e300;
  gen::Model m(16, "wavefront");
  const RegionId sweep = m.region("sweep");
  const int corners[4][2] = {{+1, +1}, {-1, +1}, {+1, -1}, {-1, -1}};
  for (Rank r = 0; r < 16; ++r) {
    auto& prog = m.rank(r);
    const int x = static_cast<int>(r % 4), y = static_cast<int>(r / 4);
    const auto inside = [](int cx, int cy) { return cx >= 0 && cy >= 0 && cx < 4 && cy < 4; };
    int visit = 0;
    for (int it = 0; it < 6; ++it) {
      for (int s = 0; s < 4; ++s)
        for (int b = 0; b < 2; ++b) {
          const int dx = corners[s][0], dy = corners[s][1];
          if (inside(x - dx, y)) prog.recv(static_cast<Rank>(y * 4 + x - dx), 4096, 2 * s, m.world());
          if (inside(x, y - dy)) prog.recv(static_cast<Rank>((y - dy) * 4 + x), 4096, 2 * s + 1, m.world());
          prog.work(sweep, visit++ < 16 ? 0.0005 : 0.001);
          if (inside(x + dx, y)) prog.send(static_cast<Rank>(y * 4 + x + dx), 4096, 2 * s, m.world());
          if (inside(x, y + dy)) prog.send(static_cast<Rank>((y + dy) * 4 + x), 4096, 2 * s + 1, m.world());
        }
      prog.allreduce(m.world(), 8);
    }
  }
  const double expected = m.run(p).end_time();
  CHECK(j["runtime"]["scenario"].get<double>() == Approx(expected).epsilon(0.001));
  CHECK(j["transforms"].size() == 3);
}

TEST_CASE("scenario wavefront-export: the rebalanced trace written for SMPI and LogGOPSim", "[export]") {
  TempDir dir;
  const json j = cli_json(kScenarios + "wavefront-export.yaml", dir);
  CHECK(j["gain"]["seconds"].get<double>() > 0);
  const auto out = dir / "out";
  REQUIRE(std::filesystem::exists(out / "wavefront.goal"));
  REQUIRE(std::filesystem::exists(out / "ti" / "smpirun.sh"));
  // The exports are of the transformed trace: rebalancing sweep() gives every rank the mean of
  // 2 slow ranks (2 ms per block) and 6 others (1 ms): 1.25 ms x 4 iterations x 4 sweeps x 2
  // blocks = 40 ms of computation, 4e7 flops at the generated hosts' 1 Gflop/s.
  for (int rank : {0, 1, 4, 7}) {
    std::ifstream in(out / "ti" / ("rank-" + std::to_string(rank) + ".txt"));
    std::string who, action;
    double flops = 0;
    while (in >> who >> action) {
      std::string rest;
      std::getline(in, rest);
      if (action == "compute") flops += std::stod(rest);
    }
    INFO("rank " << rank);
    CHECK(flops == Approx(4e7).epsilon(1e-6));
  }
}

TEST_CASE("scenario phases-fat-tree: a time window selects one phase; a platform file is used") {
  TempDir dir;
  const json j = run_json(kScenarios + "phases-fat-tree.yaml", dir);
  CHECK(j["transforms"][0]["visits"] == 80);  // 10 phase-2 iterations × ranks 8-15
  CHECK(j["transforms"][0]["computation_before"].get<double>() == Approx(0.8).epsilon(1e-9));
  CHECK(j["gain"]["seconds"].get<double>() == Approx(0.02).epsilon(0.02));  // 10 × 20 % of 10 ms
  CHECK_THAT(j["platform"]["identity"].get<std::string>(), Catch::Contains("fat-tree.xml"));
}

TEST_CASE("wisp run errors: one line naming the file and place, non-zero exit, no output") {
  TempDir dir;
  const auto out = (dir / "out").string();
  const auto missing = run_wisp("run -o " + out + " /nonexistent/s.yaml");
  CHECK(missing.exit_code == 1);
  CHECK(missing.err == "wisp: error: /nonexistent/s.yaml: cannot read the scenario file: no such file\n");

  const auto region = write_scenario(dir, "r.yaml", R"(wisp: 1
trace: {generate: "imbalance --ranks 4 --iterations 4"}
transforms:
  - rebalance: {region: wrok}
)");
  const auto bad = run_wisp("run -o " + out + " " + region);
  CHECK(bad.exit_code == 1);
  CHECK(bad.err == "wisp: error: " + region + ":4:16: no region 'wrok' in the trace (closest: work)\n");
  CHECK_FALSE(std::filesystem::exists(out));

  const auto ranks = write_scenario(dir, "k.yaml", R"(wisp: 1
trace: {generate: "imbalance --ranks 4 --iterations 4"}
transforms:
  - scale: {region: work, ranks: "2-7", factor: 0.5}
)");
  const auto beyond = run_wisp("run -o " + out + " " + ranks);
  CHECK(beyond.exit_code == 1);
  CHECK_THAT(beyond.err, Catch::Contains(ranks + ":4:12: rank set '2-7': rank 7 does not exist"));

  const auto trace = write_scenario(dir, "t.yaml", "wisp: 1\ntrace: nowhere/traces.otf2\n");
  const auto no_trace = run_wisp("run -o " + out + " " + trace);
  CHECK(no_trace.exit_code == 1);
  CHECK_THAT(no_trace.err, Catch::StartsWith("wisp: error: " + trace + ":2:8: trace: ") &&
                               Catch::Contains("no such file or directory"));

  const auto ok =
      write_scenario(dir, "ok.yaml", "wisp: 1\ntrace: {generate: \"imbalance --ranks 2 --iterations 2\"}\n");
  REQUIRE(run_wisp("-q run -o " + out + " " + ok).exit_code == 0);
  const auto again = run_wisp("-q run -o " + out + " " + ok);
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.err, Catch::Contains("exists and is not empty (use --force"));
  CHECK(run_wisp("-q run --force -o " + out + " " + ok).exit_code == 0);
}

TEST_CASE("wisp run on a trace whose replay deadlocks reports the blocked ranks") {
  // Rank 1 waits for a message rank 0 never sends: the replay cannot finish.
  TempDir dir;
  Definitions d;
  d.ranks.resize(2);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
  const RegionId main = d.add_region(make_region("main"));
  const RegionId recv = d.add_region(make_region("MPI_Recv"));
  TraceBuilder b(d);
  b.rank(0).enter(0, main);
  b.rank(0).leave(1.0, main);
  b.rank(1).enter(0, main);
  b.rank(1).enter(0.5, recv);
  b.rank(1).recv(0.9, 0, d.world, 7, 8);
  b.rank(1).leave(0.9, recv);
  b.rank(1).leave(1.0, main);
  write_otf2(b.finish(), dir / "trace");
  const auto file = write_scenario(dir, "d.yaml", "wisp: 1\ntrace: trace\n");
  const auto r = run_wisp("-q run -o " + (dir / "out").string() + " " + file);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("deadlock") && Catch::Contains("rank 1") && Catch::Contains("MPI_Recv"));
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("the issue's smallest scenario runs, with the trace path relative to the scenario file") {
  TempDir dir;
  std::filesystem::create_directories(dir / "scenarios");
  REQUIRE(run_wisp("-q generate imbalance --ranks 8 --iterations 16 --mode static -o " +
                   (dir / "traces" / "run42").string())
              .exit_code == 0);
  const auto file =
      write_scenario(dir, "scenarios/minimal.yaml",
                     "wisp: 1\ntrace: ../traces/run42/traces.otf2\ntransforms:\n  - rebalance: {region: work}\n");
  const json j = run_json(file, dir);
  gen::ImbalanceOptions o;
  o.ranks = 8;
  o.iterations = 16;
  o.mode = "balanced";
  CHECK(j["runtime"]["scenario"].get<double>() == Approx(gen::imbalance_balanced_runtime(o)).epsilon(0.01));
  CHECK(j["platform"]["identity"].get<std::string>().starts_with("calibrated"));
}

TEST_CASE("wisp run: replay.costs, the trust section and its warnings") {
  TempDir dir;
  const auto out = (dir / "out").string();
  const auto model = write_scenario(dir, "m.yaml", R"(wisp: 1
trace: {generate: "imbalance --ranks 4 --iterations 4"}
replay: {costs: model}
transforms:
  - rebalance: {region: work}
)");
  const json m = run_json(model, dir);
  CHECK(m["trust"]["costs"] == "model only");
  CHECK(std::abs(m["trust"]["identity_error"].get<double>()) < 0.001);
  CHECK_FALSE(m["trust"].contains("residuals"));
  const auto anchored = write_scenario(dir, "a.yaml", R"(wisp: 1
trace: {generate: "imbalance --ranks 4 --iterations 4"}
transforms:
  - rebalance: {region: work}
)");
  const json a = run_json(anchored, dir);
  CHECK(a["trust"]["costs"] == "trace-anchored");
  CHECK(a["trust"]["residuals"]["total"]["calls"].get<int>() > 0);
  CHECK(a["trust"]["warnings"].is_array());
  // The generated trace is the model's: both modes give the same gain.
  CHECK(a["gain"]["seconds"].get<double>() == Approx(m["gain"]["seconds"].get<double>()).epsilon(1e-6));

  const auto bad = write_scenario(dir, "b.yaml",
                                  "wisp: 1\ntrace: {generate: \"imbalance --ranks 2 --iterations 2\"}\n"
                                  "replay: {costs: cheap}\n");
  const auto r = run_wisp("run -o " + out + " " + bad);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains(bad + ":3:17: costs is anchored or model"));
}

TEST_CASE("scenario hybrid-rebalance-threads: the generator's balanced-threads variant, rank 0 still late") {
  TempDir dir;
  const json j = run_json(kScenarios + "hybrid-rebalance-threads.yaml", dir);
  gen::HybridOptions o;
  o.threads = 4;
  o.iterations = 50;
  o.thread_imbalance = 0.5;
  o.rank_imbalance = 0.2;
  o.balanced_threads = true;
  CHECK(j["runtime"]["scenario"].get<double>() == Approx(gen::generate_hybrid(o).end_time()).epsilon(1e-6));
  // By hand: rank 0 sets the pace; its team's longest work 0.01 x 1.2 x 1.5 becomes the mean
  // 0.01 x 1.2 x (3 + 1.5) / 4, i.e. 0.0045 s less in each of the 50 iterations.
  CHECK(j["gain"]["seconds"].get<double>() == Approx(50 * 0.01 * 1.2 * (1.5 - 4.5 / 4)).epsilon(1e-6));
  CHECK(std::abs(j["runtime"]["identity_error"].get<double>()) < 1e-6);
  // OpenMP barrier waits: before, the master and two threads wait 0.5 w for the slow thread, in each
  // of the 50 iterations of every rank (w = 0.01 s x 1.2 on rank 0, 0.01 s on ranks 1-3); after, the
  // balanced teams meet at once.
  bool found = false;
  for (const json& row : j["callpaths"])
    if (row["metric"] == "omp_ibarrier_wait") {
      found = true;
      CHECK(row["before"].get<double>() == Approx(50 * 1.5 * 0.01 * (1.2 + 3)).epsilon(1e-6));
      CHECK(row["after"].get<double>() == Approx(0).margin(1e-9));
    }
  CHECK(found);
}

TEST_CASE("a point run in stages: the result of run_point, and a dropped point leaves no replay behind") {
  TempDir dir;
  for (const char* costs : {"anchored", "model"}) {
    INFO(costs);
    const auto file = write_scenario(dir, std::string(costs) + ".yaml",
                                     std::string("wisp: 1\ntrace: {generate: \"imbalance --ranks 4 --iterations 6\"}\n"
                                                 "replay: {costs: ") +
                                         costs + "}\ntransforms:\n  - rebalance: {region: work}\n");
    const Scenario s = load_scenario(file);
    const ScenarioTrace in = load_trace(s);
    const PointResult whole = run_point(s, in.trace);
    PointRun staged(s, in.trace);
    const double identity = staged.identity().trace.end_time();  // the caller works in between
    const PointResult result = staged.finish();
    CHECK(identity == whole.identity);
    CHECK(result.identity == whole.identity);
    CHECK(result.scenario == whole.scenario);
    CHECK(result.costs == whole.costs);
    {
      PointRun dropped(s, in.trace);  // its identity replay (and, model-only, its scenario's) running
    }
    CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);  // every child reaped: none left running or defunct
    CHECK(errno == ECHILD);
  }
}

// The gain interval on a generated trace (its calibrated platform explains nearly all of every call:
// the hypotheses agree with the point within 0.5 %, almost none of the path is kept residual), its
// absence with --no-interval, and the key's check.
TEST_CASE("gain interval: spans the point on a generated trace, null with --no-interval", "[scenario][interval]") {
  TempDir dir;
  const json j = cli_json(kScenarios + "halo-rebalance.yaml", dir);
  const double gain = j["gain"]["seconds"].get<double>();
  REQUIRE(j["gain_interval"].is_array());
  CHECK(j["gain_interval"][0].get<double>() <= gain);
  CHECK(gain <= j["gain_interval"][1].get<double>());
  CHECK(j["gain"]["interval"]["fixed_costs"].get<double>() == Approx(gain).epsilon(0.005));
  CHECK(j["gain"]["interval"]["minima_model"].get<double>() == Approx(gain).epsilon(0.005));
  CHECK(j["trust"]["kept_residual_share"].get<double>() < 0.01);
  CHECK(j["trust"]["warnings"].dump().find("interval") == std::string::npos);  // narrow: no warning
  TempDir off;
  const json k = cli_json(kScenarios + "halo-rebalance.yaml", off, "--no-interval");
  CHECK(k["gain_interval"].is_null());
  CHECK(k["gain"]["seconds"].get<double>() == Approx(gain).margin(1e-12));
  const auto bad = off / "bad.yaml";
  std::ofstream(bad)
      << "wisp: 1\ntrace:\n  generate: imbalance --ranks 4 --iterations 10\nreplay:\n  interval: maybe\n";
  const auto r = run_wisp("-q run -o " + (off / "x").string() + " " + bad.string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("interval is true or false"));
}
