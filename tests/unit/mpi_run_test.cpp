// `mpirun -n N wisp run` of a single point: process 0 replays it, the analyses of its three traces
// spread over every process (driver/analysis_service.hpp). Its outputs equal one process's and
// `-n 1`'s (report.json without timings, report.txt, report.html with its timelines, the cubes and
// the simulated traces), on generated scenarios (a `zero` transform's MBM_all, hybrid threads) and
// on real traces; more processes than ranks are noted. Skipped when wisp was built without MPI.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "mpi_helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using wisp::test::mpirun;
using wisp::test::TempDir;
using wisp::test::without_timings;

std::string file(const fs::path& p) { return wisp::read_file(p).value_or("(missing " + p.string() + ")"); }

// `scenario` run by one process, by `mpirun -n 1` and by `mpirun -n 3`: the same files.
void require_same_run_over_processes(const fs::path& scenario, const TempDir& dir) {
  const std::string name = scenario.stem().string();
  const auto args = [&](const std::string& out) {
    return "-q run " + scenario.string() + " -o " + (dir / out).string();
  };
  const std::string one = mpirun(1, "self,vader", args(name + "-n1"));
  if (one.empty()) return;
  INFO(scenario.string());
  const auto plain = wisp::test::run_wisp(args(name + "-plain"));
  INFO(plain.err);
  REQUIRE(plain.exit_code == 0);
  for (const auto& [run, command] :
       {std::pair{name + "-n1", one}, std::pair{name + "-n3", mpirun(3, "self,vader", args(name + "-n3"))}}) {
    const auto r = wisp::test::shell(command, dir.path());
    INFO(run << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const fs::path a = dir / (name + "-plain"), b = dir / run;
    CHECK(without_timings(json::parse(file(b / "report.json"))) ==
          without_timings(json::parse(file(a / "report.json"))));
    for (const char* f : {"report.txt", "report.html", "identity.cubex", "scenario.cubex", "difference.cubex",
                          "identity-trace/traces.def", "scenario-trace/traces.def"})
      CHECK((file(b / f) == file(a / f)));  // f is named by INFO on failure
  }
}

fs::path scenario_file(const TempDir& dir, const std::string& name, const std::string& body) {
  const fs::path p = dir / (name + ".yaml");
  std::ofstream(p) << body;
  return p;
}

}  // namespace

TEST_CASE("mpirun -n 3 wisp run: a point's analyses over the processes equal one process's", "[mpi][run]") {
  TempDir dir;
  for (const char* name : {"halo-zero-compute", "hybrid-rebalance-threads"})
    require_same_run_over_processes(fs::path(WISP_SOURCE_DIR) / "scenarios" / (std::string(name) + ".yaml"), dir);
  const auto zero = json::parse(file(dir / "halo-zero-compute-n3" / "report.json"));
  CHECK(zero.contains("zero_versus_mbm"));  // MBM_all of the zeroed call path, computed over the processes
}

TEST_CASE("mpirun -n 3 wisp run on real traces equals one process", "[mpi][run]") {
  TempDir dir;
  const std::string ring = wisp::test::real_trace("whatif/imb8_ring/static").string();
  require_same_run_over_processes(scenario_file(dir, "ring",
                                                "wisp: 1\nname: ring\ntrace: " + ring +
                                                    "\ntransforms:\n  - scale: {region: work, "
                                                    "ranks: \"7\", factor: 0.5}\n"),
                                  dir);
  const std::string sweep3d = wisp::test::real_trace("apps/sweep3d_50c_6r").string();
  require_same_run_over_processes(scenario_file(dir, "sweep3d",
                                                "wisp: 1\nname: sweep3d\ntrace: " + sweep3d +
                                                    "\nanalyses: [pag, pop]\ntransforms:\n  - "
                                                    "rebalance: {region: sweep}\n"),
                                  dir);
}

TEST_CASE("mpirun wisp run: more processes than ranks are noted", "[mpi][run]") {
  TempDir dir;
  const std::string trace = wisp::test::real_trace("scorep-ping-pong").string();
  const fs::path s =
      scenario_file(dir, "pingpong", "wisp: 1\nname: pingpong\ntrace: " + trace + "\nplatform: {bandwidth: 1e9}\n");
  const std::string cmd = mpirun(3, "self,vader", "run " + s.string() + " -o " + (dir / "out").string());
  if (cmd.empty()) return;
  const auto r = wisp::test::shell(cmd, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("3 processes for a trace of 2 ranks: 1 of them have no rank to analyse"));
  CHECK(fs::exists(dir / "out" / "report.html"));
}

TEST_CASE("mpirun wisp run: a point that deadlocks, or a trace that is missing, ends every process in one line",
          "[mpi][run]") {
  TempDir dir;
  wisp::write_otf2(wisp::test::deadlocking_trace(), dir / "pair");
  const fs::path deadlock = scenario_file(
      dir, "deadlock",
      "wisp: 1\nname: deadlock\ntrace: " + (dir / "pair").string() + "\nreplay: {eager_threshold: 1000}\n");
  const fs::path missing =
      scenario_file(dir, "missing", "wisp: 1\nname: missing\ntrace: " + (dir / "nothing").string() + "\n");
  for (const auto& [scenario, says] : {std::pair{deadlock, "deadlock"}, std::pair{missing, "nothing"}}) {
    const std::string cmd = mpirun(3, "self,vader", "-q run " + scenario.string() + " -o " + (dir / "out").string());
    if (cmd.empty()) return;
    const auto r = wisp::test::shell("timeout 120 env " + cmd, dir.path());
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.exit_code != 124);  // not the timeout: the serving processes do not wait for process 0 forever
    CHECK_THAT(r.err, Catch::Contains(says));
    CHECK(!fs::exists(dir / "out"));
  }
}
