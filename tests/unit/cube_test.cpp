// Cube 4 output: `wisp analyze -o` writes analysis.cubex, `wisp run` identity, scenario and
// difference cubes. Read back with a reader of the format (cube_reader.hpp), the values equal the
// JSON's, metric by metric, call path by call path, rank by rank; the trees are the trace's.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "cube_reader.hpp"
#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/error.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/tar_archive.hpp"
#include "wisp/report/cube_report.hpp"

using namespace wisp;

namespace {

// Every value is stored as it is (metric-inclusive, as CubeLib reads it): bit for bit.
void check_value(const test::CubeFile&, int, double cube_value, double expected) { CHECK(cube_value == expected); }

// The cnode of a JSON call path ("" is the program root).
std::map<std::string, std::size_t> cnodes_by_json_path(const test::CubeFile& cube) {
  std::map<std::string, std::size_t> out;
  for (std::size_t n = 0; n < cube.cnode_path.size(); ++n) {
    const std::string& p = cube.cnode_path[n];
    const auto slash = p.find('/');
    out[slash == std::string::npos ? "" : p.substr(slash + 1)] = n;
  }
  return out;
}

std::size_t master(const test::CubeFile& cube, Rank r) {
  for (std::size_t l = 0; l < cube.locations(); ++l)
    if (cube.location_rank[l] == static_cast<int>(r) && cube.location_thread[l] == 0) return l;
  FAIL("no master location of rank " << r);
  return 0;
}

// Every JSON value is in the cube, and the cube holds nothing else for those metrics.
void check_against_json(const test::CubeFile& cube, const nlohmann::json& j) {
  const auto cnode = cnodes_by_json_path(cube);
  std::map<std::tuple<int, std::size_t, std::size_t>, double> expected;  // metric, cnode, location
  for (const auto& row : j["metrics"]) {
    const int m = cube.metric(row["metric"]);
    REQUIRE(m >= 0);
    expected[{m, cnode.at(row["callpath"]), master(cube, row["rank"])}] += row["value"].get<double>();
  }
  for (const auto& row : j["wait_estimate"])
    if (row["estimated"].get<double>() != 0)
      expected[{cube.metric("estimated_wait"), cnode.at(row["callpath"]), master(cube, row["rank"])}] +=
          row["estimated"].get<double>();
  for (const auto& row : j["mbm"]) {  // activities of no call path ("(launch)") are on the program root
    const std::size_t n = cnode.count(row["callpath"]) ? cnode.at(row["callpath"]) : 0;
    for (const char* k : {"mbm_k", "mbm_all"})
      if (row[k].get<double>() != 0) expected[{cube.metric(k), n, master(cube, 0)}] += row[k].get<double>();
  }
  for (const char* k : {"parallel_efficiency", "load_balance", "communication_efficiency", "serialisation", "transfer"})
    expected[{cube.metric(k), 0, master(cube, 0)}] = j["pop"][k].get<double>();
  if (j["pop"].contains("hybrid"))
    for (const char* k : {"hybrid_parallel_efficiency", "mpi_parallel_efficiency", "mpi_load_balance",
                          "mpi_communication_efficiency", "openmp_parallel_efficiency"})
      expected[{cube.metric(k), 0, master(cube, 0)}] = j["pop"]["hybrid"][k].get<double>();
  std::size_t checked = 0;
  for (int m = 0; m < static_cast<int>(cube.metrics.size()); ++m)
    for (std::size_t n = 0; n < cube.cnode_path.size(); ++n)
      for (std::size_t l = 0; l < cube.locations(); ++l) {
        const auto it = expected.find({m, n, l});
        const double v = cube.value(m, n, l);
        if (it == expected.end()) {
          INFO(cube.metrics[m] << " at " << cube.cnode_path[n] << ", location " << l);
          CHECK(std::abs(v) <= 1e-12);  // parents may keep rounding residue
          continue;
        }
        INFO(cube.metrics[m] << " at " << cube.cnode_path[n] << ", location " << l);
        check_value(cube, m, v, it->second);
        ++checked;
      }
  CHECK(checked == expected.size());
}

}  // namespace

TEST_CASE("cube: wisp analyze -o writes analysis.cubex with the JSON's values on the trace's trees",
          "[report][cube][real]") {
  for (const char* name : {"apps/sweep3d_50c_6r", "other-writers/casita-2_jacobi_blame_cpu_015"}) {
    CAPTURE(name);
    const auto dir = test::real_trace(name);
    test::TempDir out;
    const auto r = test::run_wisp("analyze --json '" + dir.string() + "' -o '" + (out / "a").string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const test::CubeFile cube = test::read_cube(out / "a" / "analysis.cubex");
    const Trace t = read_otf2(dir);
    // The trees: one cnode per call path under the program root, a process per rank with its
    // threads and streams, the catalogue's metric tree (parents as in the catalogue; ratios roots).
    CHECK(cube.cnode_path.size() == t.defs.callpaths.size() + 1);
    std::size_t locations = 0;
    for (const Location& rank : t.defs.ranks) locations += 1 + rank.others.size();
    CHECK(cube.locations() == locations);
    for (std::size_t m = 0; m < cube.metrics.size(); ++m) {
      const MetricInfo* info = find_metric(cube.metrics[m]);
      REQUIRE(info != nullptr);
      CHECK(cube.display[m] == display_name(info->name));
      CHECK(cube.units[m] == info->unit);
      const std::string parent = cube.metric_parent[m] < 0 ? "" : cube.metrics[cube.metric_parent[m]];
      CHECK(parent == (info->unit == "ratio" ? "" : info->parent));
    }
    CHECK(cube.display[cube.metric("mpi_latesender")] == "MPI Late Sender");
    check_against_json(cube, j);
  }
}

TEST_CASE("cube: wisp run writes identity, scenario and difference cubes; difference = scenario - identity",
          "[report][cube][scenario]") {
  test::TempDir out;
  std::ofstream(out / "s.yaml") << "wisp: 1\nname: cube\ntrace:\n  generate: imbalance --ranks 4 --iterations 6 "
                                   "--mode static\ntransforms:\n  - rebalance: {region: work}\n";
  const auto r =
      test::run_wisp("run '" + (out / "s.yaml").string() + "' -o '" + (out / "r").string() + "' --no-interval");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const test::CubeFile identity = test::read_cube(out / "r" / "identity.cubex");
  const test::CubeFile scenario = test::read_cube(out / "r" / "scenario.cubex");
  const test::CubeFile difference = test::read_cube(out / "r" / "difference.cubex");
  REQUIRE(difference.cnode_path == scenario.cnode_path);
  const auto cnode = cnodes_by_json_path(identity);
  int compared = 0;
  for (std::size_t m = 0; m < difference.metrics.size(); ++m) {
    const int s = scenario.metric(difference.metrics[m]), i = identity.metric(difference.metrics[m]);
    for (std::size_t n = 0; n < difference.cnode_path.size(); ++n)
      for (std::size_t l = 0; l < difference.locations(); ++l) {
        const double sv = s < 0 ? 0 : scenario.value(s, n, l);
        const auto path = difference.cnode_path[n].substr(
            std::min(difference.cnode_path[n].find('/'), difference.cnode_path[n].size()));
        const std::size_t in = cnode.at(path.empty() ? "" : path.substr(1));
        const double iv = i < 0 ? 0 : identity.value(i, in, l);
        INFO(difference.metrics[m] << " at " << difference.cnode_path[n] << ", location " << l);
        CHECK(difference.value(static_cast<int>(m), n, l) == Approx(sv - iv).margin(1e-12));
        compared += sv != 0 || iv != 0;
      }
  }
  CHECK(compared > 100);
  // The rebalance removes the barrier waiting: the difference of mpi_barrier_wait is negative.
  double barrier = 0;
  for (std::size_t n = 0; n < difference.cnode_path.size(); ++n)
    for (std::size_t l = 0; l < difference.locations(); ++l)
      barrier += difference.value(difference.metric("mpi_barrier_wait"), n, l);
  CHECK(barrier < 0);
  const auto off = test::run_wisp("run '" + (out / "s.yaml").string() + "' -o '" + (out / "n").string() +
                                  "' --no-interval --no-cube");
  REQUIRE(off.exit_code == 0);
  CHECK(!std::filesystem::exists(out / "n" / "identity.cubex"));
}

TEST_CASE("cube: a sweep writes the best point's cubes", "[report][cube][scenario]") {
  test::TempDir out;
  std::ofstream(out / "s.yaml") << "wisp: 1\nname: sweep\ntrace:\n  generate: imbalance --ranks 4 --iterations 6 "
                                   "--mode static\ntransforms:\n  - scale: {region: work, factor: 1}\nsweep:\n"
                                   "  transforms[0].factor: [1, 0.5]\n";
  const auto r = test::run_wisp("run '" + (out / "s.yaml").string() + "' -o '" + (out / "r").string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The best point halves work(): its scenario's time is below its identity's.
  const test::CubeFile identity = test::read_cube(out / "r" / "identity.cubex");
  const test::CubeFile scenario = test::read_cube(out / "r" / "scenario.cubex");
  const auto total = [](const test::CubeFile& c) {
    double t = 0;
    for (std::size_t n = 0; n < c.cnode_path.size(); ++n)
      for (std::size_t l = 0; l < c.locations(); ++l) t += c.value(c.metric("time"), n, l);
    return t;
  };
  CHECK(total(scenario) < total(identity));
  CHECK(std::filesystem::exists(out / "r" / "difference.cubex"));
}

TEST_CASE("cube: a value Cube cannot hold is named in one warning and written as 0", "[report][cube]") {
  test::TinyTrace tiny(2);
  tiny.work(0, "compute", 1, 5);
  const Trace t = tiny.finish(6);
  MetricTable table;
  add_record(table, "time", *t.defs.find_callpath("main/compute"), 0, std::numeric_limits<double>::quiet_NaN());
  add_record(table, "time", *t.defs.find_callpath("main"), 1, 2.5);
  test::TempDir out;
  const std::string warning = write_cube(out / "x.cubex", t, table, "test");
  CHECK(warning.find("x.cubex: 1 value(s) that are not finite (first in time)") != std::string::npos);
  const test::CubeFile cube = test::read_cube(out / "x.cubex");
  const auto cnode = cnodes_by_json_path(cube);
  CHECK(cube.value(cube.metric("time"), cnode.at("main/compute"), master(cube, 0)) == 0);
  CHECK(cube.value(cube.metric("time"), cnode.at("main"), master(cube, 1)) == 2.5);
}

TEST_CASE("tar archives: written members read back; a corrupt header is refused", "[io][cube]") {
  std::ostringstream out;
  write_tar(out, {{"anchor.xml", "<cube/>"}, {"0.data", std::string(1000, 'x')}, {"empty", ""}});
  const std::string bytes = out.str();
  CHECK(bytes.size() % 512 == 0);
  const auto members = read_tar(bytes, "t.tar");
  REQUIRE(members.size() == 3);
  CHECK(members[1].name == "0.data");
  CHECK(members[1].content == std::string(1000, 'x'));
  CHECK(members[2].content.empty());
  std::string corrupt = bytes;
  corrupt[3] ^= 1;
  CHECK_THROWS_WITH(read_tar(corrupt, "t.tar"), "t.tar: not a tar archive (header checksum)");
  CHECK_THROWS_AS(read_tar(bytes.substr(0, 700), "t.tar"), Error);
}
