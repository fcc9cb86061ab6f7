// `wisp analyze` end to end: text tables, the JSON schema, -o DIR, partition files (good and
// bad), and bad input, on an MPMD trace written as OTF2 by the generator; the activity-graph analysis's options
// (--k, --nc, --window, --min-events, --ideal-network) and sections ("pag", "mbm",
// "wait_estimate", "pop") on the static imbalance benchmark, against the model's values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"

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

// Static imbalance benchmark, 4 ranks, 20 iterations: rank r works w + e(2r/3 - 1) per iteration,
// then MPI_Barrier.
gen::ImbalanceOptions imbalance_options() {
  gen::ImbalanceOptions o;
  o.ranks = 4;
  o.iterations = 20;
  o.mode = "static";
  return o;
}

std::string write_imbalance(const test::TempDir& tmp) {
  const auto dir = tmp / "imbalance";
  write_otf2(gen::generate_imbalance(imbalance_options()), dir);
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
  // --detail: every metric in Scalasca's tree, children indented under their parents.
  CHECK(text.out.find("Metrics (Scalasca's tree") == std::string::npos);
  const auto tree = run_wisp("analyze --detail " + trace);
  REQUIRE(tree.exit_code == 0);
  const std::size_t top = tree.out.find("Metrics (Scalasca's tree");
  REQUIRE(top != std::string::npos);
  const std::string listing = tree.out.substr(top);
  for (const char* line :
       {"\n  time ", "\n    execution ", "\n      comp ", "\n      mpi ", "\n          mpi_point2point ",
        "\n            mpi_latesender ", "\n  syncs ", "\n  bytes ", "\n  imbalance "})
    CHECK(listing.find(line) != std::string::npos);
  CHECK(text.out.find("Delay costs (scalasca rules):") != std::string::npos);
  const auto paper = run_wisp("analyze --delay-rules paper " + trace);
  REQUIRE(paper.exit_code == 0);
  CHECK(paper.out.find("Delay costs (paper rules):") != std::string::npos);
  CHECK(run_wisp("analyze --delay-rules other " + trace).exit_code == 2);

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
  // Segments only with --detail; the count always.
  CHECK(!j["critical_path"].contains("segments"));
  CHECK(j["critical_path"]["segment_count"].get<std::size_t>() > 0);
  CHECK(j["critical_path"]["length"].get<double>() > 0);
  const auto detailed = run_wisp("analyze --json --detail " + trace);
  REQUIRE(detailed.exit_code == 0);
  const auto segments = nlohmann::json::parse(detailed.out)["critical_path"]["segments"];
  CHECK(segments.size() == j["critical_path"]["segment_count"].get<std::size_t>());
  const auto& acc = j["delay_accounting"];
  CHECK(acc["short_term"].get<double>() + acc["long_term"].get<double>() + acc["unattributed"].get<double>() ==
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

  const struct {
    const char* text;
    const char* error;
  } bad[] = {
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

TEST_CASE("wisp analyze: the activity-graph analysis sections with the issue's keys, values from the model",
          "[analysis][cli][pag][pop]") {
  test::TempDir tmp;
  const std::string trace = write_imbalance(tmp);
  const gen::ImbalanceOptions o = imbalance_options();
  const gen::ModelParams& m = o.model;
  // Per iteration the slowest rank (3) works w + e, everyone then waits in the barrier (o + C):
  // T = o + I + N(w + e + o + C) + o + C. On an ideal network T_ideal = N(w + e) = max useful;
  // mean useful N·w: LB = w/(w + e), Ser = 1, Trf = N(w + e)/T (paper 003).
  const double e = o.percent / 100 * gen::imbalance_balanced_runtime(o) / o.iterations;
  const double N = o.iterations, w = o.work, C = m.collective(4, 0);
  const double T = m.overhead + m.init_time + N * (w + e + m.overhead + C) + m.overhead + C;

  const auto run = run_wisp("analyze --json --k 3 " + trace);
  REQUIRE(run.exit_code == 0);
  const auto j = nlohmann::json::parse(run.out);
  for (const char* section : {"metrics", "pag", "mbm", "wait_estimate", "pop"}) CHECK(j.contains(section));

  // "pag": {"critical_path_length": s, "paths": [{"duration": s, "callpaths": {...}}, ...]}: the
  // PAG's longest path is the run; the critical path is rank 3's work and barriers.
  const auto& pag = j["pag"];
  CHECK(pag["critical_path_length"].get<double>() == Approx(T).margin(1e-8));
  REQUIRE(pag["paths"].size() == 3);
  for (const auto& p : pag["paths"]) {
    CHECK(p["duration"].get<double>() <= pag["critical_path_length"].get<double>() + 1e-12);
    REQUIRE(p["callpaths"].is_object());
  }
  CHECK(pag["paths"][0]["duration"].get<double>() == Approx(T).margin(1e-8));
  CHECK(pag["paths"][0]["callpaths"]["main/work"].get<double>() == Approx(N * (w + e)).margin(1e-8));

  // "mbm": [{"callpath", "critical_path", "mbm_k", "mbm_all"}]: 0 <= MBM_all <= MBM_k <= critical.
  REQUIRE(j["mbm"].is_array());
  REQUIRE(!j["mbm"].empty());
  CHECK(j["mbm"][0]["callpath"] == "main/work");
  for (const auto& r : j["mbm"]) {
    for (const char* key : {"callpath", "critical_path", "mbm_k", "mbm_all"}) CHECK(r.contains(key));
    CHECK(r["mbm_all"].get<double>() >= 0);
    CHECK(r["mbm_all"].get<double>() <= r["mbm_k"].get<double>() + 1e-12);
    CHECK(r["mbm_k"].get<double>() <= r["critical_path"].get<double>() + 1e-12);
  }

  // "wait_estimate": [{"callpath", "rank", "estimated", "trace_based"}]: MPI_Barrier is Wait at
  // Barrier; rank r waits N(e - e(2r/3 - 1)) = N·e(2 - 2r/3) per run, trace-based and estimated
  // alike (the last rank never waits, so the global minimum is the pure barrier).
  int barrier_rows = 0;
  for (const auto& r : j["wait_estimate"]) {
    for (const char* key : {"callpath", "rank", "estimated", "trace_based"}) CHECK(r.contains(key));
    if (r["callpath"] != "main/MPI_Barrier") continue;
    ++barrier_rows;
    const double rank = r["rank"].get<double>();
    CHECK(r["trace_based"].get<double>() == Approx(N * e * (2 - 2 * rank / 3)).margin(1e-7));
    CHECK(r["estimated"].get<double>() == Approx(N * e * (2 - 2 * rank / 3)).margin(1e-7));
  }
  CHECK(barrier_rows == 4);

  // "pop": {"load_balance", "serialisation", "transfer", "parallel_efficiency", "windows": [...]}.
  const auto& pop = j["pop"];
  CHECK(pop["load_balance"].get<double>() == Approx(w / (w + e)).epsilon(1e-8));
  CHECK(pop["serialisation"].get<double>() == Approx(1).epsilon(1e-8));
  CHECK(pop["transfer"].get<double>() == Approx(N * (w + e) / T).epsilon(1e-8));
  CHECK(pop["parallel_efficiency"].get<double>() == Approx(N * w / T).epsilon(1e-8));
  CHECK(pop["ideal_runtime_source"] == "clock replay");
  // Default windows: adaptive, base T/100, at least 3 MPI events of every rank in each.
  CHECK(pop["window_length"].get<double>() == Approx(T / 100).epsilon(1e-9));
  CHECK(pop["window_min_events"] == 3);
  REQUIRE(!pop["windows"].empty());
  for (const auto& win : pop["windows"]) {
    for (const char* key : {"start", "end", "load_balance", "serialisation", "transfer", "parallel_efficiency"})
      CHECK(win.contains(key));
    CHECK(win["min_events"].get<int>() >= 3);
  }

  // Text: MBM next to the critical-path share, the wait ratios, POP factors and windows.
  const auto text = run_wisp("analyze --k 3 " + trace);
  REQUIRE(text.exit_code == 0);
  for (const char* part : {"Near-critical paths (paper 001): ", " distinct path(s)", "Maximum Benefit Metric",
                           "MBM_all", "Minimum-based wait-state estimate", "Wait at Barrier", "POP efficiency factors",
                           "load balance", "time windows"})
    CHECK(text.out.find(part) != std::string::npos);
}

TEST_CASE("wisp analyze: --nc, fixed and merged windows, pop_windows.csv, SimGrid ideal network",
          "[analysis][cli][pag][pop]") {
  test::TempDir tmp;
  const std::string trace = write_imbalance(tmp);
  const gen::ImbalanceOptions o = imbalance_options();
  const gen::ModelParams& m = o.model;
  const double e = o.percent / 100 * gen::imbalance_balanced_runtime(o) / o.iterations;
  const double N = o.iterations, C = m.collective(4, 0);
  const double T = m.overhead + m.init_time + N * (o.work + e + m.overhead + C) + m.overhead + C;

  // --nc 0: only paths as long as the critical path (mode 2); with --k 2 at most two (mode 3).
  const auto nc = nlohmann::json::parse(run_wisp("analyze --json --nc 0 " + trace).out);
  REQUIRE(!nc["pag"]["paths"].empty());
  for (const auto& p : nc["pag"]["paths"]) CHECK(p["duration"].get<double>() == Approx(T).margin(1e-8));
  const auto both = nlohmann::json::parse(run_wisp("analyze --json --nc 50 --k 2 " + trace).out);
  CHECK(both["pag"]["paths"].size() == 2);

  // --window 0.1: fixed windows, ceil(T / 0.1) of them; with --min-events 40 merged.
  const auto fixed = nlohmann::json::parse(run_wisp("analyze --json --window 0.1 " + trace).out);
  CHECK(fixed["pop"]["window_min_events"] == 0);
  CHECK(fixed["pop"]["windows"].size() == static_cast<std::size_t>(std::ceil(T / 0.1)));
  CHECK(fixed["pop"]["windows"][1]["start"].get<double>() == Approx(0.1));
  const auto merged = nlohmann::json::parse(run_wisp("analyze --json --window 0.1 --min-events 40 " + trace).out);
  CHECK(merged["pop"]["windows"].size() < fixed["pop"]["windows"].size());
  for (const auto& win : merged["pop"]["windows"]) CHECK(win["min_events"].get<int>() >= 40);

  // -o DIR: pop_windows.csv with one line per window.
  const auto out = tmp / "report";
  REQUIRE(run_wisp("analyze --window 0.1 -o " + out.string() + " " + trace).exit_code == 0);
  const std::string csv = read_file(out / "pop_windows.csv").value_or("");
  CHECK(csv.rfind("start,end,load_balance,serialisation,transfer,parallel_efficiency,", 0) == 0);
  CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == fixed["pop"]["windows"].size() + 1);
  const auto saved = nlohmann::json::parse(read_file(out / "analysis.json").value_or(""));
  CHECK(saved["pop"]["windows"].size() == fixed["pop"]["windows"].size());

  // --ideal-network simgrid: the SimGrid replay on the ideal platform gives the same T_ideal.
  const auto sim = nlohmann::json::parse(run_wisp("analyze --json --ideal-network simgrid " + trace).out);
  CHECK(sim["pop"]["ideal_runtime_source"] == "SimGrid replay on the ideal platform");
  CHECK(sim["pop"]["ideal_runtime"].get<double>() == Approx(N * (o.work + e)).margin(1e-8));
  CHECK(sim["pop"]["clock_replay_ideal_runtime"].get<double>() == Approx(N * (o.work + e)).margin(1e-8));
  CHECK(sim["pop"]["transfer"].get<double>() == Approx(N * (o.work + e) / T).epsilon(1e-8));
}

TEST_CASE("wisp analyze: bad the activity-graph analysis option values are one clear line", "[analysis][cli]") {
  test::TempDir tmp;
  const std::string trace = write_imbalance(tmp);
  const struct {
    const char* args;
    const char* error;
  } bad[] = {
      {"--k 0", "--k 0: the number of near-critical paths must be between 1 and 10000"},
      {"--k -3", "--k -3: the number of near-critical paths must be between 1 and 10000"},
      {"--k 1000000", "--k 1000000: the number of near-critical paths must be between 1 and 10000"},
      {"--k many", "--k"},
      {"--nc 150", "--nc 150: the near-critical percentage must be between 0 and 100"},
      {"--nc -1", "--nc -1: the near-critical percentage must be between 0 and 100"},
      {"--window 0", "--window 0: the window length must be a positive number of seconds"},
      {"--window -2", "--window -2: the window length must be a positive number of seconds"},
      {"--window abc", "--window"},
      {"--window 1e-12", "more than 10^7 windows"},
      {"--min-events -1", "--min-events -1: the number of MPI events must be between 0 and 1000000"},
      {"--eager-limit -5", "--eager-limit -5: the limit must not be negative"},
      {"--top -1", "--top -1: the number of rows must not be negative"},
      {"--ideal-network ideal", "--ideal-network"},
  };
  for (const auto& b : bad) {
    const auto r = run_wisp("analyze " + trace + " " + b.args);
    INFO(b.args << " -> " << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("wisp: error: ", 0) == 0);
    CHECK(r.err.find(b.error) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("wisp analyze -o: report.html within --html-limit, the full detail of a window beside it",
          "[analysis][cli][report]") {
  test::TempDir dir;
  const std::string trace = (dir / "h").string(), out = (dir / "a").string();
  REQUIRE(run_wisp("generate halo --dims 8x8 --steps 150 --overload-ranks 0-7 --overload 0.5 -o " + trace).exit_code ==
          0);
  const auto r = run_wisp("-q analyze " + trace + " -o " + out + " --html-limit 1");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto page = read_file(dir / "a" / "report.html"), window = read_file(dir / "a" / "report-window.html");
  REQUIRE(page);
  REQUIRE(window);
  CHECK(page->size() <= 1000000);
  CHECK(window->size() <= 1000000);
  CHECK_THAT(*page, Catch::Contains("The timelines are a summary") && Catch::Contains("ranks 60-63"));
  CHECK_THAT(*window, Catch::Contains("Full detail of 0.000000 s to"));
  // A window asked for: its full detail beside the whole page; a bad one refused before the work.
  REQUIRE(run_wisp("-q analyze " + trace + " -o " + (dir / "c").string() + " --html-window 0.01:0.02").exit_code == 0);
  CHECK_THAT(*read_file(dir / "c" / "report-window.html"),
             Catch::Contains("Full detail of 0.010000 s to 0.020000 s (--html-window 0.01:0.02)"));
  const auto bad = run_wisp("-q analyze " + trace + " -o " + (dir / "d").string() + " --html-window 2:1");
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("--html-window '2:1': expected START:END in seconds"));
  CHECK(!std::filesystem::exists(dir / "d"));
  // Within the default 20 MB the page is whole and alone.
  const auto whole = run_wisp("-q analyze " + trace + " -o " + (dir / "b").string());
  REQUIRE(whole.exit_code == 0);
  CHECK(!std::filesystem::exists(dir / "b" / "report-window.html"));
  CHECK_THAT(*read_file(dir / "b" / "report.html"), !Catch::Contains("The timelines are a summary"));
}
