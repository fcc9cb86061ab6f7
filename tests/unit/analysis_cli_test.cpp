// `wisp analyze` end to end: text tables, the JSON schema, -o DIR, partition files (good and
// bad), and bad input, on an MPMD trace written as OTF2 by the generator.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "generators/generators.hpp"
#include "helpers.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using test::run_wisp;

namespace {

std::string write_mpmd(const test::TempDir& tmp) {
  gen::MpmdOptions o;
  o.particle_ranks = 4;
  o.mesh_ranks = 2;
  o.steps = 10;
  o.mesh_work = 0.05;
  o.particle_work = 0.02;
  const auto dir = tmp / "mpmd";
  write_otf2(gen::generate_mpmd(o), dir);
  return dir.string();
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

}  // namespace

TEST_CASE("wisp analyze prints the analyses and writes the JSON schema", "[analysis][cli]") {
  test::TempDir tmp;
  const std::string trace = write_mpmd(tmp);

  const auto text = run_wisp("analyze " + trace);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Wait states") != std::string::npos);
  CHECK(text.out.find("mpi_latesender") != std::string::npos);
  CHECK(text.out.find("Critical path:") != std::string::npos);
  CHECK(text.out.find("main/mesh_solve") != std::string::npos);
  CHECK(text.out.find("Delay costs:") != std::string::npos);

  const auto json_run = run_wisp("analyze --json " + trace);
  REQUIRE(json_run.exit_code == 0);
  const auto j = nlohmann::json::parse(json_run.out);
  CHECK(j["trace"] == trace);
  CHECK(j["ranks"] == 6);
  CHECK(j["runtime"].get<double>() > 0);
  REQUIRE(j["metrics"].is_array());
  bool found_mesh_cp = false;
  for (const auto& m : j["metrics"]) {
    REQUIRE(m.size() == 4);
    CHECK(m["value"].get<double>() != 0);
    CHECK(m["rank"].get<int>() >= 0);
    if (m["metric"] == "critical_path" && m["callpath"] == "main/mesh_solve") found_mesh_cp = true;
  }
  CHECK(found_mesh_cp);
  CHECK(j["critical_path"]["segments"].size() > 0);
  CHECK(j["critical_path"]["length"].get<double>() > 0);
  const auto& acc = j["delay_accounting"];
  CHECK(acc["short_term"].get<double>() + acc["long_term"].get<double>() +
            acc["unattributed"].get<double>() ==
        Approx(acc["total_wait"].get<double>()));
  CHECK(j["partitions"]["list"].size() == 2);

  const auto out_dir = tmp / "report";
  const auto written = run_wisp("analyze " + trace + " -o " + out_dir.string());
  REQUIRE(written.exit_code == 0);
  CHECK(std::filesystem::exists(out_dir / "analysis.json"));
  CHECK(std::filesystem::exists(out_dir / "analysis.txt"));
  const auto again = run_wisp("analyze " + trace + " -o " + out_dir.string());
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("wisp: error:") == 0);
  CHECK(run_wisp("analyze " + trace + " -o " + out_dir.string() + " --force").exit_code == 0);
}

TEST_CASE("wisp analyze --partitions: user partitions and clear errors", "[analysis][cli]") {
  test::TempDir tmp;
  const std::string trace = write_mpmd(tmp);

  write(tmp / "good.txt", "# particles first\nparticles: 0-3\nmesh: 4,5   # two ranks\n");
  const auto good = run_wisp("analyze --json --partitions " + (tmp / "good.txt").string() + " " + trace);
  REQUIRE(good.exit_code == 0);
  const auto j = nlohmann::json::parse(good.out);
  CHECK(j["partitions"]["list"][0]["name"] == "particles");
  CHECK(j["partitions"]["list"][1]["ranks"] == "4-5");

  const struct { const char* text; const char* error; } bad[] = {
      {"particles 0-3\nmesh: 4-5\n", "bad.txt:1: expected 'name: ranks'"},
      {"particles: 0-3\nmesh: 3-5\n", "bad.txt:2: rank 3 is already in partition 'particles' (line 1)"},
      {"particles: 0-3\nmesh: 4-9\n", "bad.txt:2: partition 'mesh': rank set '4-9': rank 9 does not exist"},
      {"particles: 0-3\n", "bad.txt: ranks 4-5 are in no partition"},
      {": 0-5\n", "bad.txt:1: the partition has no name"},
  };
  for (const auto& b : bad) {
    write(tmp / "bad.txt", b.text);
    const auto r = run_wisp("analyze --partitions " + (tmp / "bad.txt").string() + " " + trace);
    INFO(b.text << " -> " << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(b.error) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const auto missing = run_wisp("analyze --partitions " + (tmp / "none.txt").string() + " " + trace);
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("cannot read partitions file") != std::string::npos);
  const auto no_trace = run_wisp("analyze " + (tmp / "nothing").string());
  CHECK(no_trace.exit_code == 1);
  CHECK(no_trace.err.find("wisp: error:") == 0);
}
