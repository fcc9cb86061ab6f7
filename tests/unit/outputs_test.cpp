// Outputs: compact report.json without critical-path segments unless --detail,
// report.txt's top rows without all-zero rows, the identity's simulated trace beside the
// scenario's, the flat profile of `wisp info --regions`, short region names in scenarios,
// -v/-q on either side of the verb, platform files through an XML parser, and communicator
// flags kept by the OTF2 writer. Expected values come from hand-built traces, the report's own
// JSON (for the text) or otf2-print.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/analysis/flat_profile.hpp"
#include "wisp/error.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/report/trace_info.hpp"
#include "wisp/scenario/region_names.hpp"

using namespace wisp;
using nlohmann::json;
using wisp::test::run_wisp;
using wisp::test::TempDir;

namespace {

const std::string kScenarios = std::string(WISP_SOURCE_DIR) + "/scenarios/";

// Output of a shell command (stdout), for otf2-print.
std::string shell(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, p)) out.append(buffer, n);
    pclose(p);
  }
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The rows of report.txt's call-path table: metric -> rows of (measured, identity, scenario).
std::map<std::string, std::vector<std::array<double, 3>>> callpath_rows(const std::string& text) {
  std::map<std::string, std::vector<std::array<double, 3>>> out;
  std::istringstream in(text.substr(text.find("per call path, summed over ranks")));
  std::string line, metric;
  std::getline(in, line);
  const std::regex row(R"(^    \S.*\s(-?\d+\.\d{6})\s+(-?\d+\.\d{6})\s+(-?\d+\.\d{6})\s+[+-]\d+\.\d{6}$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.rfind("  ", 0) == 0 && line[2] != ' ')
      metric = line.substr(2);
    else if (std::regex_match(line, m, row))
      out[metric].push_back({std::stod(m[1]), std::stod(m[2]), std::stod(m[3])});
  }
  return out;
}

}  // namespace

TEST_CASE("wisp run: compact report.json, segments only with --detail, identity trace beside the scenario's",
          "[outputs][cli]") {
  TempDir dir;
  const std::string scenario = kScenarios + "halo-rebalance.yaml";
  const auto plain = run_wisp("-q run -o " + (dir / "plain").string() + " " + scenario);
  INFO(plain.err);
  REQUIRE(plain.exit_code == 0);
  const std::string text = read_file(dir / "plain" / "report.json").value_or("");
  CHECK(text.find("\n") == text.size() - 1);  // one line: compact
  const json j = json::parse(text);
  for (const char* which : {"measured", "identity", "scenario"}) {
    CHECK(!j["analyses"][which]["critical_path"].contains("segments"));
    CHECK(!j["analyses"][which].contains("metrics"));  // per-rank rows: with --detail
    CHECK(j["analyses"][which]["critical_path"]["segment_count"].get<std::size_t>() > 0);
  }
  const auto detail = run_wisp("-q run --detail -o " + (dir / "detail").string() + " " + scenario);
  REQUIRE(detail.exit_code == 0);
  const json d = json::parse(read_file(dir / "detail" / "report.json").value_or(""));
  for (const char* which : {"measured", "identity", "scenario"}) {
    CHECK(d["analyses"][which]["critical_path"]["segments"].size() ==
          j["analyses"][which]["critical_path"]["segment_count"].get<std::size_t>());
    CHECK(d["analyses"][which]["metrics"].size() > 0);
  }

  // identity-trace/: a readable OTF2 archive (otf2-print reads it) whose span is the identity runtime.
  const auto identity = dir / "plain" / "identity-trace" / "traces.otf2";
  REQUIRE(std::filesystem::exists(identity));
  CHECK(count_of(shell("otf2-print -G " + identity.string() + " 2>&1"), "LOCATION ") == 16);
  const Trace t = read_otf2(identity);
  CHECK(t.end_time() == Approx(j["runtime"]["identity"].get<double>()).margin(2e-9));
  const Trace s = read_otf2(dir / "plain" / "scenario-trace" / "traces.otf2");
  CHECK(s.end_time() == Approx(j["runtime"]["scenario"].get<double>()).margin(2e-9));
}

TEST_CASE("wisp run --top N: N non-zero rows per metric, all-zero rows omitted and counted", "[outputs][cli]") {
  TempDir dir;
  const auto r = run_wisp("-q run --top 3 -o " + (dir / "out").string() + " " + kScenarios + "halo-rebalance.yaml");
  REQUIRE(r.exit_code == 0);
  const std::string text = read_file(dir / "out" / "report.txt").value_or("");
  const json j = json::parse(read_file(dir / "out" / "report.json").value_or(""));
  // Expected from the JSON: per metric min(3, rows not zero in all three columns).
  std::map<std::string, std::size_t> nonzero;
  std::size_t zero = 0;
  for (const auto& row : j["callpaths"]) {
    const bool all_zero = std::abs(row["measured"].get<double>()) < 0.5e-6 &&
                          std::abs(row["before"].get<double>()) < 0.5e-6 &&
                          std::abs(row["after"].get<double>()) < 0.5e-6;
    if (all_zero)
      ++zero;
    else
      ++nonzero[row["metric"].get<std::string>()];
  }
  const auto rows = callpath_rows(text);
  REQUIRE(!rows.empty());
  bool some_cut = false;
  for (const auto& [metric, n] : nonzero) {
    INFO(metric);
    REQUIRE(rows.count(metric));
    CHECK(rows.at(metric).size() == std::min<std::size_t>(3, n));
    some_cut |= n > 3;
    for (const auto& v : rows.at(metric)) CHECK((v[0] != 0 || v[1] != 0 || v[2] != 0));
  }
  CHECK(rows.size() == nonzero.size());
  CHECK(some_cut);
  CHECK(text.find("more call paths (--top, report.json)") != std::string::npos);
  if (zero) CHECK(text.find(std::to_string(zero) + " rows zero in all three columns omitted") != std::string::npos);
}

TEST_CASE("wisp run: a zero transform prints the zero-versus-MBM block once", "[outputs][cli]") {
  TempDir dir;
  const auto r = run_wisp("-q run -o " + (dir / "out").string() + " " + kScenarios + "halo-zero-compute.yaml");
  REQUIRE(r.exit_code == 0);
  const std::string text = read_file(dir / "out" / "report.txt").value_or("");
  CHECK(count_of(text, "zero in simulation vs the program activity graph") == 1);
  CHECK(count_of(text, "MBM_all on the identity PAG") == 1);
}

TEST_CASE("wisp run: zero transforms selecting one call path twice print its MBM row once", "[outputs][cli]") {
  // `zero compute` on ranks 0-1 and again on ranks 2-3 both zero main/compute (before: two rows).
  TempDir dir;
  std::ofstream(dir / "twice.yaml")
      << "wisp: 1\nname: twice\ntrace:\n  generate: halo --dims 2x2 --steps 10 "
         "--overload-ranks 1 --overload 0.4\ntransforms:\n"
         "  - zero: {region: compute, ranks: 0-1}\n  - zero: {region: compute, ranks: 2-3}\n"
         "analyses: [wait_states, critical_path, pag]\n";
  const auto r = run_wisp("-q run -o " + (dir / "out").string() + " " + (dir / "twice.yaml").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = read_file(dir / "out" / "report.txt").value_or("");
  CHECK(count_of(text, "zero in simulation vs the program activity graph") == 1);
  CHECK(count_of(text, "zero main/compute: simulated gain") == 1);
  const auto report = json::parse(read_file(dir / "out" / "report.json").value_or("{}"));
  CHECK(report["zero_versus_mbm"].size() == 1);
}

TEST_CASE("options -v and -q before or after the sub-command", "[outputs][cli]") {
  TempDir dir;
  const std::string trace = (dir / "t").string();
  REQUIRE(run_wisp("generate halo --dims 2x1 --steps 2 -o " + trace).exit_code == 0);
  for (const std::string& args : {"-v info " + trace, "info -v " + trace, "info " + trace + " -v", "-q info " + trace,
                                  "info -q " + trace, "info " + trace + " -vv", "analyze -q --top 1 " + trace}) {
    INFO(args);
    const auto r = run_wisp(args);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  CHECK(run_wisp("info --bogus " + trace).exit_code == 2);
}

TEST_CASE("flat profile: exclusive time, visits and the busiest rank per region, by hand", "[outputs][info]") {
  using test::us;
  test::TinyTrace b(2);
  // rank 0: main 0..10 with foo 1..4 (bar 2..3 inside); rank 1: main 0..10 with foo 5..6 and foo 7..9.
  b.rank(0).enter(us(1), b.region("foo"));
  b.work(0, "bar", 2, 3);
  b.rank(0).leave(us(4), b.region("foo"));
  b.work(1, "foo", 5, 6);
  b.work(1, "foo", 7, 9);
  const Trace t = b.finish(10);
  const FlatProfile p = flat_profile(t);
  CHECK(p.total == Approx(us(20)));
  REQUIRE(p.rows.size() == 3);
  // main: (10 - 3) + (10 - 3) = 14 us; foo: 2 + 1 + 2 = 5 us, rank 0 has 2 and rank 1 3; bar: 1 us.
  CHECK(t.defs.regions[p.rows[0].region].name == "main");
  CHECK(p.rows[0].time == Approx(us(14)));
  CHECK(p.rows[0].visits == 2);
  CHECK(t.defs.regions[p.rows[1].region].name == "foo");
  CHECK(p.rows[1].time == Approx(us(5)));
  CHECK(p.rows[1].visits == 3);
  CHECK(p.rows[1].max_time == Approx(us(3)));
  CHECK(p.rows[1].max_rank == 1);
  CHECK(p.rows[2].time == Approx(us(1)));
  const json j = flat_profile_json(t);
  CHECK(j["time"] == "exclusive");
  CHECK(j["rows"][1]["share"].get<double>() == Approx(0.25));
  CHECK(j["rows"][1]["paradigm"] == "user");
  const std::string text = flat_profile_text(t, "tiny");
  CHECK(text.find("exclusive time") != std::string::npos);
  CHECK(text.find("25.00%") != std::string::npos);
}

TEST_CASE("wisp info --regions on the real miniFE trace: the short names, most time first", "[outputs][info]") {
  const auto trace = test::real_trace("apps/minife_100c_imb20_4r");
  const auto r = run_wisp("info --regions " + trace.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("matvec_std = void miniFE::matvec_std<MatrixType, VectorType>:...") != std::string::npos);
  const auto j = json::parse(run_wisp("info --json " + trace.string()).out)["flat_profile"]["rows"];
  REQUIRE(j.size() > 5);
  double share = 0;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (i) CHECK(j[i - 1]["exclusive_time"].get<double>() >= j[i]["exclusive_time"].get<double>());
    share += j[i]["share"].get<double>();
  }
  CHECK(share <= 1.0 + 1e-9);
  CHECK(share > 0.99);  // almost no time outside every region
}

TEST_CASE("short forms of C++ and Fortran region names", "[outputs][scenario]") {
  CHECK(short_name("void cg_solve<Matrix, Vector>(Matrix&, Vector const&, double*)") == "cg_solve");
  CHECK(qualified_short_form(
            "void miniFE::matvec_std<M, V>::operator()(M&, V&) [with M = miniFE::CSRMatrix<double, int, int>]") ==
        "miniFE::matvec_std::operator()");
  CHECK(
      short_name("void miniFE::matvec_std<M, V>::operator()(M&, V&) [with M = miniFE::CSRMatrix<double, int, int>]") ==
      "matvec_std");
  CHECK(
      short_name("typename miniFE::TypeTraits<typename Vector::ScalarType>::magnitude_type miniFE::dot(const Vector&, "
                 "const Vector&) [with Vector = Vector<double, int, int>]") == "dot");
  CHECK(short_name("int main(int, char**)") == "main");
  CHECK(short_name("main") == "main");
  CHECK(short_name("pack_kernel_module::clover_pack_message_left") == "clover_pack_message_left");
  CHECK(short_name("bool Vec::operator<(const Vec&) const") == "operator<");
  CHECK(short_name("void* operator new(std::size_t)") == "operator new");
  CHECK(short_name("!$omp parallel @jacobi.c:45") == "!$omp parallel @jacobi.c:45");
  CHECK(middle_shortened(std::string(100, 'a') + "END", 20) == "aaaaaaaa...aaaaaaEND");
}

TEST_CASE("a scenario's region: exact name, glob, short form, short name, unique prefix; ambiguity and suggestions",
          "[outputs][scenario]") {
  test::TinyTrace b(1);
  const char* solve1 = "void ns::cg_solve<A>(A&) [with A = matvec_std<int>]";
  const char* solve2 = "void ns::cg_solve<A>(A&) [with A = matvec_overlap<int>]";
  const char* matvec = "void ns::matvec_std<M, V>::operator()(M&, V&)";
  const char* unused = "void ns::matvec_unused(int)";
  b.work(0, solve1, 1, 2);
  b.work(0, solve2, 3, 4);
  b.work(0, matvec, 5, 6);
  b.region(unused);  // defined, never entered: does not count for short names
  const Trace t = b.finish(10);
  const auto selected = [&](const std::string& wanted) {
    std::vector<std::string> out;
    const std::vector<bool> m = resolve_region(t.defs, wanted);
    for (RegionId r = 0; r < m.size(); ++r)
      if (m[r]) out.push_back(t.defs.regions[r].name);
    return out;
  };
  CHECK(selected(solve1) == std::vector<std::string>{solve1});
  CHECK(selected("*cg_solve*").size() == 2);
  CHECK(selected("ns::matvec_std::operator()") == std::vector<std::string>{matvec});
  CHECK(selected("matvec_std") == std::vector<std::string>{matvec});
  CHECK(selected("matvec") == std::vector<std::string>{matvec});  // matvec_unused has no visit
  CHECK_THROWS_WITH(selected("cg_solve"),
                    Catch::StartsWith("region 'cg_solve' is ambiguous: 2 regions have this short name: ns::cg_solve = "
                                      "'void ns::cg_solve<A>(A&) [with A = matvec_std<int>]'; ns::cg_solve = "));
  CHECK_THROWS_WITH(selected("cg"), Catch::Contains("2 regions have this short name starting with it"));
  CHECK_THROWS_WITH(selected("cg_slove"), "no region 'cg_slove' in the trace (closest: cg_solve = '" +
                                              std::string(solve1) + "', cg_solve = '" + solve2 + "')");
}

TEST_CASE("a scenario selects miniFE's matvec_std by its short name, cg_solve by its short name",
          "[outputs][scenario]") {
  const auto trace = test::real_trace("apps/minife_100c_imb20_4r");
  const Trace t = read_otf2(trace);
  const std::vector<bool> m = resolve_region(t.defs, "matvec");
  REQUIRE(std::count(m.begin(), m.end(), true) == 1);
  const RegionId r = static_cast<RegionId>(std::find(m.begin(), m.end(), true) - m.begin());
  CHECK(t.defs.regions[r].name.rfind("void miniFE::matvec_std<MatrixType, VectorType>::operator()(", 0) == 0);
  // Two cg_solve instantiations are defined, one is entered: only that one counts.
  const std::vector<bool> cg = resolve_region(t.defs, "cg_solve");
  REQUIRE(std::count(cg.begin(), cg.end(), true) == 1);
  const RegionId c = static_cast<RegionId>(std::find(cg.begin(), cg.end(), true) - cg.begin());
  CHECK(t.defs.regions[c].name.find("Matvec = matvec_std<") != std::string::npos);
  CHECK_THROWS_WITH(resolve_region(t.defs, "waxpy"), Catch::Contains("closest: waxpby = 'void miniFE::waxpby("));
}

TEST_CASE("platform files are XML: comments, CDATA and entities", "[outputs][replay][platform]") {
  TempDir dir;
  std::ofstream(dir / "p.xml")
      << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n"
         "<!-- <prop id=\"wisp:bogus\" value=\"1\"/> -->\n"
         "<!--\n<prop id=\"wisp:overhead\" value=\"9\"/>\n-->\n"
         "<prop id=\"wisp:overhead:MPI_Send\" value=\"&#50;e-6\"/>\n"
         "<![CDATA[ <prop id=\"wisp:bogus\" value=\"1\"/> ]]>\n"
         "<zone id=\"z\" routing=\"Full\"><host id=\"h\" speed=\"1Gf\"/></zone>\n</platform>\n";
  const Platform p = load_platform(dir / "p.xml");
  CHECK(p.mpi.overhead("MPI_Send") == 2e-6);                         // &#50; is '2'
  CHECK(p.mpi.default_overhead == Platform{}.mpi.default_overhead);  // the commented-out one is ignored
  std::ofstream(dir / "broken.xml") << "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n</platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "broken.xml"), Catch::Contains("broken.xml line 3: not well-formed XML"));
  std::ofstream(dir / "late.xml")
      << "<platform version=\"4.1\">\n<!-- a comment -->\n<zone id=\"z\" routing=\"Full\">\n"
         "  <host id=\"h\" speed=\"0f\"/>\n</zone></platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "late.xml"), Catch::Contains("late.xml line 4: <host> speed=\"0f\""));
}

TEST_CASE("the OTF2 writer keeps the communicators' CREATE_DESTROY_EVENTS flags", "[outputs][io]") {
  const auto trace = test::real_trace("apps/sweep3d_50c_6r");
  TempDir dir;
  write_otf2(read_otf2(trace), dir / "out", WriteOptions{});
  const std::string original = shell("otf2-print -G " + (trace / "traces.otf2").string());
  const std::string written = shell("otf2-print -G " + (dir / "out" / "traces.otf2").string());
  const std::regex comm_re(R"re(COMM\s+\d+\s+Name: "(MPI_COMM_[A-Z]+)".*Flags: (\S+))re");
  const auto flags = [&](const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, comm_re)) out[m[1]] = m[2];
    return out;
  };
  const auto want = flags(original);
  REQUIRE(want.size() == 2);
  CHECK(want.at("MPI_COMM_WORLD") == "{CREATE_DESTROY_EVENTS}");
  CHECK(flags(written) == want);
  // The CommCreate events are written too.
  CHECK(count_of(shell("otf2-print " + (dir / "out" / "traces.otf2").string()), "COMM_CREATE") ==
        count_of(shell("otf2-print " + (trace / "traces.otf2").string()), "COMM_CREATE"));
}

// A miniFE report reads in short names: no demangled template text in report.txt (title,
// transforms, call-path table), the full names beside the short ones in report.json.
TEST_CASE("wisp run on the real miniFE trace: report.txt in short names, report.json with both", "[outputs][cli]") {
  test::TempDir dir;
  const auto trace = test::real_trace("whatif/minife2/imb20_A") / "traces.otf2";
  std::ofstream(dir / "s.yaml") << "wisp: 1\nname: cg\ntrace: \"" << trace.string()
                                << "\"\ntransforms:\n  - rebalance: cg_solve\n";
  const auto r = run_wisp("-q run --force -o " + (dir / "out").string() + " " + (dir / "s.yaml").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("[with") == std::string::npos);
  CHECK(r.out.find("OperatorType") == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("1. rebalance cg_solve (per instance)"));
  // The screen: one screen, the largest changes only, no zero rows; report.txt: the tables.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') <= 30);
  CHECK(r.out.find("+0.000000") == std::string::npos);
  CHECK(r.out.find("-0.000000") == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("\n  cg_solve/dot/MPI_Allreduce "));  // dot is called in breakdown too
  CHECK_THAT(r.out, Catch::Contains("more changed rows: report.txt per metric, --detail to print them"));
  const std::string report = *read_file(dir / "out" / "report.txt");
  CHECK_THAT(report, Catch::Contains("\n    cg_solve/dot/MPI_Allreduce "));
  CHECK(report.find("[with") == std::string::npos);
  const auto detail =
      run_wisp("-q run --force --detail -o " + (dir / "out").string() + " " + (dir / "s.yaml").string());
  CHECK_THAT(detail.out, Catch::Contains("\n    cg_solve/dot/MPI_Allreduce "));
  const json j = json::parse(std::ifstream(dir / "out" / "report.json"));
  bool found = false;
  for (const json& row : j["callpaths"])
    if (row["short_name"] == "cg_solve/dot/MPI_Allreduce") {
      found = true;
      CHECK(row["callpath"].get<std::string>().find("miniFE::dot(const Vector&, const Vector&) [with") !=
            std::string::npos);
    }
  CHECK(found);
}

// Sweep3D (6 ranks): of its 12.09 s of traced MPI time the network model computes 0.04 s; the rest
// is waiting for partners, MPI_Init and MPI_Finalize (their traced time, summed here from the trace)
// and residual kept as measured, which outweighs the network's part: latency factors can move only
// that part, said in the text, the JSON and report.html, and warned about. No point of the sweep
// gains (x1 is the identity, x10 is slower): no best point is claimed.
TEST_CASE("a platform sweep on the real Sweep3D trace says what it can act on and claims no best point",
          "[outputs][cli]") {
  test::TempDir dir;
  const auto trace = test::real_trace("apps/sweep3d_50c_6r") / "traces.otf2";
  std::ofstream(dir / "s.yaml") << "wisp: 1\nname: lat\ntrace: \"" << trace.string()
                                << "\"\ntransforms:\n  - platform: {latency_factor: 1}\n"
                                   "sweep:\n  transforms[0].latency_factor: [1, 10]\n";
  const auto r = run_wisp("-q run --jobs 2 --force -o " + (dir / "out").string() + " " + (dir / "s.yaml").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("best point    none: no point gains more than 0.1 % of its identity runtime"));
  CHECK_THAT(r.out, Catch::Contains("platform      platform changes act on the network's part of the traced MPI time"));
  CHECK_THAT(r.out,
             Catch::Contains("warning: the network model explains 3 % of what the MPI calls cost beside waiting"));
  const json j = json::parse(std::ifstream(dir / "out" / "report.json"));
  CHECK_FALSE(j.contains("best"));
  const json& reach = j["platform_reach"];
  CHECK(reach["traced_mpi_seconds"].get<double>() == Approx(12.091810).margin(1e-5));
  double init_finalize = 0;
  const Trace measured = read_otf2(trace);
  for (const RankTrace& rt : measured.ranks)
    for (const CallSpan& c : rt.mpi_calls)
      if (const std::string& name = measured.defs.region_of(rt.events[c.enter].ref).name;
          name == "MPI_Init" || name == "MPI_Finalize")
        init_finalize += rt.events[c.leave].time - rt.events[c.enter].time;
  CHECK(reach["init_finalize_seconds"].get<double>() == Approx(init_finalize).margin(1e-6));
  CHECK(reach["network_seconds"].get<double>() + reach["waiting_seconds"].get<double>() + init_finalize +
            reach["residual_seconds"].get<double>() ==
        Approx(12.091810).margin(1e-5));
  CHECK(reach["network_seconds"].get<double>() < 0.1 * reach["residual_seconds"].get<double>());
  const std::string html = *read_file(dir / "out" / "report.html");
  CHECK_THAT(html, Catch::Contains("the network model explains 3 %"));
  // One point: the same line in its trust block and JSON.
  std::ofstream(dir / "p.yaml") << "wisp: 1\nname: lat\ntrace: \"" << trace.string()
                                << "\"\ntransforms:\n  - platform: {latency_factor: 10}\n";
  const auto p = run_wisp("-q run --force -o " + (dir / "point").string() + " " + (dir / "p.yaml").string());
  REQUIRE(p.exit_code == 0);
  CHECK_THAT(p.out,
             Catch::Contains("warning: the network model explains 3 % of what the MPI calls cost beside waiting"));
  const json pj = json::parse(std::ifstream(dir / "point" / "report.json"));
  CHECK(pj["trust"]["platform_reach"]["network_seconds"].get<double>() ==
        Approx(reach["network_seconds"].get<double>()));
  CHECK_THAT(*read_file(dir / "point" / "report.html"),
             Catch::Contains("platform changes act on the network's part of the traced MPI time"));
}

// Numbers that need a word, on the real Sweep3D trace: the critical path shorter than the run, the
// delay costs' remainder, POP serialisation above 100 % in windows.
TEST_CASE("wisp analyze on the real Sweep3D trace explains the numbers that need it", "[outputs][cli]") {
  const auto trace = test::real_trace("apps/sweep3d_50c_6r") / "traces.otf2";
  const auto r = run_wisp("analyze --window 0.02 " + trace.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 2.196776 s run, 2.188652 s path: 0.008124 s, of it 0.002368 s before rank 0's first event.
  CHECK_THAT(r.out, Catch::Contains("the other 0.008124 s of the 2.196776 s run: 0.002368 s before the path starts "
                                    "(rank 0's first event), the rest waiting"));
  CHECK_THAT(r.out, Catch::Contains("+ 0.046049 dropped where a long-term scale was clipped (Scalasca's rules)"));
  CHECK(r.out.find("nothing to blame in 0 wait states") == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("serialisation above 100 % in"));
}

// Source locations where the trace defines them (Score-P's compiler instrumentation: file and
// begin line of every function; otf2-print -G shows cg_solve at cg_solve.hpp line 73).
TEST_CASE("region source locations in info --regions, its JSON and wisp run's call-path rows", "[outputs][cli]") {
  const auto trace = test::real_trace("whatif/minife2/imb20_A") / "traces.otf2";
  const auto text = run_wisp("info --regions " + trace.string());
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("/src_scorep/cg_solve.hpp:73)"));
  CHECK_THAT(text.out, Catch::Contains("MPI_Allreduce\n"));  // MPI functions have no line: nothing shown
  const json j = json::parse(run_wisp("info --json " + trace.string()).out);
  bool found = false;
  for (const json& row : j["flat_profile"]["rows"])
    if (row["short_name"] == "cg_solve") {
      found = true;
      CHECK(row["source"] == "_tmp_oracle/apps/minife2/ref/src_scorep/cg_solve.hpp:73");
    }
  CHECK(found);
}

TEST_CASE("wisp run SWEEP: each identity warning once, not again for the best point's cubes", "[outputs][cli]") {
  // Model-only costs on another network than the generator's: the identity is off the measured run
  // and says so in one warning; the sweep's best point is replayed again for its cubes, silently.
  TempDir dir;
  std::ofstream(dir / "sweep.yaml") << "wisp: 1\nname: sweep\ntrace:\n  generate: halo --dims 2x2 --steps 10\n"
                                       "platform: {latency: 1e-4, bandwidth: 1e8}\nreplay: {costs: model}\n"
                                       "transforms:\n  - platform: {latency_factor: 0.5}\n"
                                       "sweep:\n  transforms[0].latency_factor: [0.5, 0.25]\n";
  const auto r = run_wisp("run -o " + (dir / "out").string() + " " + (dir / "sweep.yaml").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(count_of(r.err, "off the measured run") == 1);
  CHECK(count_of(r.err, "the best point's cubes: its run again") == 1);
  CHECK(std::filesystem::exists(dir / "out" / "scenario.cubex"));
}

TEST_CASE("wisp run: a scenario without transforms says it equals the identity", "[outputs][cli]") {
  TempDir dir;
  std::ofstream(dir / "none.yaml") << "wisp: 1\nname: none\ntrace:\n  generate: halo --dims 2x2 --steps 10\n";
  const auto r = run_wisp("-q run -o " + (dir / "out").string() + " " + (dir / "none.yaml").string());
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(count_of(r.out, "warning: the scenario has no transforms: it equals the identity") == 1);
  CHECK(count_of(r.out, "straddles zero") == 0);
  CHECK(count_of(r.out, "may not pay off") == 0);
}

TEST_CASE("wisp run: a call-path rebalance says what its instances and visits are", "[outputs][cli]") {
  // Before: "... 4 call paths, 2 repeated, 80 instances: 4 visits, ..." read as 80 instances of 4 visits.
  TempDir dir;
  std::ofstream(dir / "cp.yaml")
      << "wisp: 1\nname: cp\ntrace:\n  generate: halo --dims 2x2 --steps 10 "
         "--overload-ranks 1 --overload 0.4\ntransforms:\n  - rebalance: {mode: callpaths}\n";
  const auto r = run_wisp("-q run -o " + (dir / "out").string() + " " + (dir / "cp.yaml").string());
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(std::regex_search(r.out, std::regex(R"(\(call path by call path\) on 4 ranks: \d+ call paths \(\d+ repeated, )"
                                            R"(\d+ instances balanced\); selected \d+ visits, computation)")));
}
