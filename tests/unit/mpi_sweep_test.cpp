// Sweeps beyond one machine: `mpirun -n 3 wisp run` equals `--jobs 1`, `--points`
// slices merged equal the whole, a deadlocking point is a row under MPI, a killed worker rank ends
// the job with the lost points named and `--resume` finishes. The MPI tests are skipped when this
// wisp was built without MPI or `mpirun` is absent.
#include <fmt/format.h>
#include <sys/wait.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "helpers.hpp"
#include "mpi_helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/sweep_parts.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/platform.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using wisp::test::mpirun;
using wisp::test::run_wisp;
using wisp::test::shell;
using wisp::test::TempDir;

const std::string kSweep = std::string(WISP_SOURCE_DIR) + "/scenarios/halo-bandwidth-sweep.yaml";

std::string file(const fs::path& p) { return wisp::read_file(p).value_or("<missing " + p.string() + ">"); }

// The files a sweep writes that must agree whatever ran it (a sweep's report.json has no timings).
void check_same_outputs(const fs::path& a, const fs::path& b) {
  CHECK(json::parse(file(a / "report.json")) == json::parse(file(b / "report.json")));
  CHECK(file(a / "sweep.csv") == file(b / "sweep.csv"));
  CHECK(file(a / "report.txt") == file(b / "report.txt"));
  CHECK(fs::exists(b / "scenario-trace" / "traces.otf2"));
  CHECK(fs::exists(b / "identity-trace" / "traces.otf2"));
  CHECK(fs::exists(b / "report.html"));
}

fs::path reference_run(const TempDir& dir) {
  const auto r = run_wisp(fmt::format("-q run {} --jobs 1 -o {}", kSweep, (dir / "ref").string()));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir / "ref";
}

}  // namespace

TEST_CASE("sweep slices: --points parts merged equal one run; missing points are named", "[sweep][parts]") {
  TempDir dir;
  const fs::path ref = reference_run(dir);
  const std::string p0 = (dir / "p0").string(), p1 = (dir / "p1").string();
  REQUIRE(run_wisp(fmt::format("-q run {} --points 0-3 -o {}", kSweep, p0)).exit_code == 0);
  const auto half = run_wisp(fmt::format("-q merge {} -o {}", p0, (dir / "half").string()));
  CHECK(half.exit_code == 1);
  CHECK_THAT(half.err, Catch::Contains("points 4-9 of 10 are missing"));
  REQUIRE(run_wisp(fmt::format("-q run {} --points 4-9 --jobs 2 -o {}", kSweep, p1)).exit_code == 0);
  CHECK(wisp::read_part_rows(p1).size() == 6);
  const auto m = run_wisp(fmt::format("-q merge {} {} -o {}", p1, p0, (dir / "merged").string()));
  INFO(m.err);
  REQUIRE(m.exit_code == 0);
  check_same_outputs(ref, dir / "merged");
  // A part of another slice is not continued.
  const auto wrong = run_wisp(fmt::format("-q run {} --points 0-4 --resume -o {}", kSweep, p0));
  CHECK_THAT(wrong.err, Catch::Contains("cannot resume: this part holds points 0-3, not 0-4"));
}

TEST_CASE("sweep slices: --slurm-array writes the array, merge and submit scripts", "[sweep][parts]") {
  TempDir dir;
  const auto r = run_wisp(fmt::format("-q run {} --slurm-array 3 -o {}", kSweep, (dir / "slurm").string()));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string array = file(dir / "slurm" / "sweep-array.sbatch");
  CHECK_THAT(array, Catch::Contains("#SBATCH --array=0-2") && Catch::Contains("SLICES=( 0-2 3-5 6-9 )") &&
                        Catch::Contains("--points \"${SLICES[$SLURM_ARRAY_TASK_ID]}\" --resume"));
  CHECK_THAT(file(dir / "slurm" / "sweep-merge.sbatch"), Catch::Contains(" merge '") && Catch::Contains("/parts/2'"));
  CHECK_THAT(file(dir / "slurm" / "submit.sh"), Catch::Contains("--dependency=afterok:"));
  // What the array tasks would run, run here: the parts merge into the sweep's result.
  const auto tasks = shell(fmt::format("cd {} && for SLURM_ARRAY_TASK_ID in 0 1 2; do export SLURM_ARRAY_TASK_ID; "
                                       "bash sweep-array.sbatch || exit 1; done && bash sweep-merge.sbatch",
                                       (dir / "slurm").string()),
                           dir.path());
  INFO(tasks.err);
  REQUIRE(tasks.exit_code == 0);
  check_same_outputs(reference_run(dir), dir / "slurm" / "result");
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("mpirun -n 3 wisp run: the sweep's outputs equal --jobs 1, one identity replay for the job", "[sweep][mpi]") {
  TempDir dir;
  const std::string cmd = mpirun(3, "self,vader", fmt::format("run {} -o {}", kSweep, (dir / "mpi").string()));
  if (cmd.empty()) return;
  const fs::path ref = reference_run(dir);
  const auto r = shell(cmd, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_same_outputs(ref, dir / "mpi");
  CHECK_FALSE(fs::exists(dir / "mpi.partial"));
  // The sweep's 10 points share one platform: one worker replays the identity and the other is
  // sent it (each worker made its own before); rank 0 replays the best point once more for its traces,
  // saying so in one line and no more (its log lines would repeat the point's).
  CHECK_THAT(r.err, Catch::Contains("10 point(s) over 2 worker rank(s), 1 identity run(s) shared"));
  CHECK(count(r.err, "replaying the unmodified trace") == 1);
  CHECK(count(r.err, "writing the best point's traces and cubes: its run again") == 1);
}

// Two ranks exchange 4 KiB head to head (both MPI_Send, then MPI_Recv): fine while sends are eager,
// a deadlock on a platform whose eager threshold is 1000 bytes (the sweep's point 1).
TEST_CASE("mpirun wisp run: a point that deadlocks is reported, the others complete", "[sweep][mpi]") {
  TempDir dir;
  using wisp::test::us;
  wisp::test::TinyTrace t(2);
  double at = 0;
  for (int i = 0; i < 5; ++i) {
    for (wisp::Rank r = 0; r < 2; ++r) {
      const double send = at + (r == 0 ? 100 : 300);
      t.work(r, "work", at, send);
      t.call(r, "MPI_Send", send, send + 5,
             [&](wisp::RankBuilder& b) { b.send(us(send + 1), 1 - r, t.world(), 7, 4096); });
      t.call(r, "MPI_Recv", send + 5, at + 320,
             [&](wisp::RankBuilder& b) { b.recv(us(at + 319), 1 - r, t.world(), 7, 4096); });
    }
    at += 320;
  }
  wisp::write_otf2(t.finish(at + 10), dir / "pair");
  for (const auto& [name, eager] : {std::pair{"eager.xml", 65536}, std::pair{"rendezvous.xml", 1000}})
    std::ofstream(dir / name) << wisp::platform_xml(wisp::contention_free_crossbar(2, 1e-6, 1e10, 1e-6, eager));
  std::ofstream(dir / "s.yaml") << fmt::format(
      "wisp: 1\nname: pair\ntrace: pair\ntransforms:\n  - platform: {{file: eager.xml}}\n"
      "sweep:\n  transforms[0].file: [\"{0}/eager.xml\", \"{0}/rendezvous.xml\", \"{0}/eager.xml\"]\n",
      dir.path().string());
  const std::string cmd =
      mpirun(3, "self,tcp", fmt::format("-q run {} -o {}", (dir / "s.yaml").string(), (dir / "out").string()));
  if (cmd.empty()) return;
  const auto r = shell(cmd, dir.path());
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("1 of 3 sweep points failed") && Catch::Contains("deadlock"));
  const json j = json::parse(file(dir / "out" / "report.json"));
  CHECK(j["points"][0].contains("runtime"));
  CHECK_THAT(j["points"][1]["error"].get<std::string>(), Catch::Contains("deadlock"));
  CHECK(j["points"][2].contains("runtime"));
}

TEST_CASE("mpirun wisp run: a killed worker rank names the lost points, --resume finishes", "[sweep][mpi]") {
  TempDir dir;
  const std::string out = (dir / "mpi").string();
  const std::string cmd = mpirun(3, "self,tcp", fmt::format("-q run {} -o {}", kSweep, out));
  if (cmd.empty()) return;
  const auto killed = shell("WISP_TEST_KILL_WORKER_AT_POINT=3 " + cmd, dir.path());
  INFO(killed.err);
  CHECK(killed.exit_code != 0);
  CHECK_THAT(killed.err, Catch::Contains("wisp: error: the MPI job ended") && Catch::Contains("--resume") &&
                             Catch::Contains(out + ".partial"));
  CHECK_FALSE(fs::exists(out));
  const std::size_t kept = wisp::read_part_rows(out + ".partial").size();
  CHECK(kept >= 2);
  CHECK(kept < 10);
  const auto resumed = shell(cmd + " --resume", dir.path());
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  check_same_outputs(reference_run(dir), out);
  CHECK_FALSE(fs::exists(out + ".partial"));
}

TEST_CASE("mpirun -n 3 wisp suggest: the candidates over the ranks, results equal --jobs 1", "[suggest][mpi]") {
  TempDir dir;
  wisp::gen::HaloOptions o;
  o.steps = 10;
  o.overload_ranks = {0, 1, 2, 3};
  o.overload = 0.5;
  wisp::write_otf2(wisp::gen::generate_halo(o), dir / "halo");
  const std::string trace = (dir / "halo").string();
  const std::string cmd =
      mpirun(3, "self,vader", fmt::format("suggest --top 2 -o {} {}", (dir / "mpi").string(), trace));
  if (cmd.empty()) return;
  const auto ref = run_wisp(fmt::format("-q suggest --jobs 1 --top 2 -o {} {}", (dir / "ref").string(), trace));
  INFO(ref.err);
  REQUIRE(ref.exit_code == 0);
  const auto r = shell(cmd, dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  json a = json::parse(file(dir / "ref" / "suggest.json")), b = json::parse(file(dir / "mpi" / "suggest.json"));
  REQUIRE(a["hypotheses"].size() >= 3);
  a.erase("timings"), b.erase("timings");  // wall seconds per step
  CHECK(a == b);
  // The files, but for the rerun hint's path (each names its own output directory).
  const auto rerun = [](std::string text, const fs::path& out) {
    for (std::size_t at; (at = text.find(out.string())) != std::string::npos;)
      text.replace(at, out.string().size(), "OUT");
    return text;
  };
  for (const auto& h : a["hypotheses"])
    CHECK(rerun(file(dir / "ref" / h["file"].get<std::string>()), dir / "ref") ==
          rerun(file(dir / "mpi" / h["file"].get<std::string>()), dir / "mpi"));
  // Rank 0 replays the identity once (its facts are in the report) and sends it to the workers.
  CHECK(count(r.err, "replaying the unmodified trace") == 1);
  CHECK_THAT(r.err, Catch::Contains("over 2 worker rank(s), 1 identity run(s) shared (1 made by rank 0)"));
}

// The launchers' environments (srun's cannot be run here: no Slurm on this machine).
TEST_CASE("launched_by_mpi: Open MPI, MPICH/PMI, PMIx and srun environments; a batch script is not a launch", "[mpi]") {
  const char* names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",     "PMIX_RANK",
                         "SLURM_STEP_ID",        "SLURM_NTASKS", "WISP_NO_MPI"};
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* n : names)
    if (const char* v = std::getenv(n)) saved.emplace_back(n, v);
  const auto clear = [&] {
    for (const char* n : names) unsetenv(n);
  };
  clear();
  CHECK_FALSE(wisp::launched_by_mpi());
  for (const char* n : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    setenv(n, "4", 1);
    CHECK(wisp::launched_by_mpi());
    setenv("WISP_NO_MPI", "1", 1);
    CHECK_FALSE(wisp::launched_by_mpi());
    clear();
  }
  setenv("SLURM_NTASKS", "4", 1);  // sbatch sets it for the batch script, which is no MPI rank
  CHECK_FALSE(wisp::launched_by_mpi());
  setenv("SLURM_STEP_ID", "0", 1);  // srun's job step
  CHECK(wisp::launched_by_mpi());
  clear();
  for (const auto& [n, v] : saved) setenv(n.c_str(), v.c_str(), 1);
}
