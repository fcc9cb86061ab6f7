// `mpirun -n 3 wisp analyze` (the analyses spread over the job's processes) prints what `-n 1` and
// a plain `wisp analyze` print (every analysis: POP's factors and windows, the near-critical paths
// and the MBM included), on real and generated traces (JSON compared with the timings removed);
// more processes than ranks are noted; -o writes every file one process writes, report.html (whole,
// or its summary and window above the size limit) included; options that need the whole trace in
// one process are refused in one line; a corrupt event file read by one process ends the job with
// the reader's one-line error. Skipped when wisp was built without MPI.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cube_reader.hpp"
#include "mpi_helpers.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using wisp::test::mpirun;
using wisp::test::TempDir;
using wisp::test::without_timings;

json parsed(const wisp::test::CommandResult& r) {
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return without_timings(json::parse(r.out));
}

void require_same_over_processes(const fs::path& trace, const TempDir& dir) {
  const std::string args = fmt::format("analyze {} --json --detail", trace.string());
  const std::string one = mpirun(1, "self,vader", args);
  if (one.empty()) return;
  INFO(trace.string());
  const json whole = parsed(wisp::test::run_wisp(args));
  const json first = parsed(wisp::test::shell(one, dir.path()));
  CHECK(first == whole);
  const auto three = wisp::test::shell(mpirun(3, "self,vader", args), dir.path());
  CHECK(parsed(three) == first);
  CHECK(first.contains("pop"));
  CHECK(first.contains("pag"));
  CHECK(first.contains("mbm"));
}

}  // namespace

TEST_CASE("mpirun -n 3 wisp analyze equals -n 1 and one process on real traces", "[mpi][analyze]") {
  TempDir dir;
  for (const char* name : {"apps/sweep3d_50c_6r", "apps/minife_100c_imb20_4r", "whatif/imb8_ring/static",
                           "other-writers/casita-2_jacobi_blame_cpu_015", "scorep-ping-pong"})
    require_same_over_processes(wisp::test::real_trace(name), dir);
}

TEST_CASE("mpirun -n 3 wisp analyze equals -n 1 and one process on a generated trace", "[mpi][analyze]") {
  TempDir dir;
  wisp::gen::HaloOptions halo;
  halo.dims = {4, 3};
  halo.steps = 30;
  halo.overload_ranks = {5};
  halo.overload = 0.3;
  halo.launch_jitter = 0.001;
  wisp::write_otf2(wisp::gen::generate_halo(halo), dir / "halo");
  require_same_over_processes(dir / "halo", dir);
}

TEST_CASE("mpirun wisp analyze: more processes than ranks noted, whole-trace options refused", "[mpi][analyze]") {
  TempDir dir;
  const std::string trace = wisp::test::real_trace("scorep-ping-pong").string();
  const std::string many = mpirun(3, "self,vader", "analyze " + trace + " --analyses wait_estimate");
  if (many.empty()) return;
  const auto r = wisp::test::shell(many, dir.path());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("3 processes for a trace of 2 ranks: 1 of them have no rank to analyse"));
  CHECK_THAT(r.out, Catch::Contains("mpi_latesender"));
  const auto o = wisp::test::shell(
      mpirun(2, "self,vader", "analyze " + trace + " --chrome-trace " + (dir / "t.json").string()), dir.path());
  CHECK(o.exit_code != 0);
  CHECK_THAT(o.err, Catch::Contains("--chrome-trace and --ideal-network simgrid need the whole trace in one process"));
  CHECK(!fs::exists(dir / "t.json"));
}

TEST_CASE("mpirun -n 3 wisp analyze -o writes what one process writes, report.html included", "[mpi][analyze]") {
  TempDir dir;
  const std::string trace = wisp::test::real_trace("apps/sweep3d_50c_6r").string();
  const std::string cmd = mpirun(3, "self,vader", "analyze " + trace + " -o " + (dir / "spread").string());
  if (cmd.empty()) return;
  const auto r = wisp::test::shell(cmd, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(wisp::test::run_wisp("analyze " + trace + " -o " + (dir / "one").string()).exit_code == 0);
  const auto json_of = [&](const char* run) {
    return without_timings(json::parse(wisp::read_file(dir / run / "analysis.json").value_or("null")));
  };
  CHECK(json_of("spread") == json_of("one"));
  CHECK(wisp::read_file(dir / "spread" / "pop_windows.csv") == wisp::read_file(dir / "one" / "pop_windows.csv"));
  CHECK(wisp::read_file(dir / "spread" / "report.html") == wisp::read_file(dir / "one" / "report.html"));
  const wisp::test::CubeFile spread = wisp::test::read_cube(dir / "spread" / "analysis.cubex");
  const wisp::test::CubeFile one = wisp::test::read_cube(dir / "one" / "analysis.cubex");
  CHECK(spread.metrics == one.metrics);
  CHECK(spread.cnode_path == one.cnode_path);
  CHECK(spread.location_rank == one.location_rank);
  CHECK(spread.stored == one.stored);
  // Above the size limit: the summary and the window, made where the events are.
  const std::string small = " --html-limit 0.6 --html-window 0.1:0.4";
  REQUIRE(
      wisp::test::shell(mpirun(3, "self,vader", "analyze " + trace + small + " -o " + (dir / "spread-small").string()),
                        dir.path())
          .exit_code == 0);
  REQUIRE(wisp::test::run_wisp("analyze " + trace + small + " -o " + (dir / "one-small").string()).exit_code == 0);
  for (const char* f : {"report.html", "report-window.html"}) {
    INFO(f);
    CHECK(fs::exists(dir / "one-small" / f));
    CHECK(wisp::read_file(dir / "spread-small" / f) == wisp::read_file(dir / "one-small" / f));
  }
}

TEST_CASE("mpirun wisp analyze: a corrupt event file of one share ends the job with one line", "[mpi][analyze]") {
  TempDir dir;
  const std::string cmd = mpirun(2, "self,vader", "analyze " + (dir / "bad").string());
  if (cmd.empty()) return;
  fs::copy(wisp::test::real_trace("apps/sweep3d_50c_6r"), dir / "bad", fs::copy_options::recursive);
  fs::resize_file(dir / "bad" / "traces" / "5.evt", 100);  // rank 5: the second process's
  const auto r = wisp::test::shell("timeout 120 env " + cmd, dir.path());
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != 124);  // not the timeout: no process waits for the one that failed
  CHECK_THAT(r.err, Catch::Contains("rank 5 (location 5): corrupt or truncated event file"));
}
