// The `pag`, `mbm`, `wait_estimate` and `pop` sections of `wisp analyze --json` have the shape the
// issue specifies and the values the model gives; text tables and the windows CSV carry them.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <sstream>

#include "hand_trace.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/report/pag_report.hpp"
#include "wisp/report/pop_report.hpp"
#include "wisp/report/wait_estimate_report.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;

TEST_CASE("pag and mbm JSON sections and text tables on the static imbalance benchmark") {
  gen::ImbalanceOptions o;
  o.ranks = 3;
  o.iterations = 2;
  o.mode = "static";
  const gen::ModelParams& m = o.model;
  const Trace t = gen::generate_imbalance(o);
  PagAnalysisOptions opt;
  opt.query.k = 4;
  const PagAnalysis a = analyze_pag(t, opt);
  const double e = o.percent / 100 * gen::imbalance_balanced_runtime(o) / o.iterations;
  const double C = m.collective(3, 0);
  const double T = m.overhead + m.init_time + 2 * (o.work + e + m.overhead + C) + m.overhead + C;

  const nlohmann::json pag = pag_json(t, a);
  CHECK(pag["critical_path_length"].get<double>() == Approx(T).margin(1e-8));
  REQUIRE(pag["paths"].size() == 4);
  for (const auto& p : pag["paths"]) {
    double sum = 0;
    for (const auto& [name, seconds] : p["callpaths"].items()) sum += seconds.get<double>();
    CHECK(sum == Approx(p["duration"].get<double>()).margin(1e-8));
  }
  // The critical path: rank 2 works 2(w + e); Init, barriers and Finalize make up the rest.
  const auto& cp = pag["paths"][0]["callpaths"];
  CHECK(cp["main/work"].get<double>() == Approx(2 * (o.work + e)).margin(4e-9));
  CHECK(cp["main/MPI_Init"].get<double>() == Approx(m.overhead + m.init_time).margin(1e-9));
  CHECK(cp["main/MPI_Barrier"].get<double>() == Approx(2 * (m.overhead + C)).margin(2e-9));
  CHECK(pag["paths"][0]["nc_percent"].get<double>() == 0);
  CHECK(pag["more_available"].get<bool>());

  // MBM: with every work activity zeroed the run is only MPI: MBM_all(work) = 2(w + e) = its
  // critical-path time (no parallel path avoids work).
  const nlohmann::json mbm = mbm_json(t, a);
  REQUIRE(mbm.is_array());
  bool found = false;
  for (const auto& row : mbm) {
    CHECK(row.size() == 4);
    if (row["callpath"] != "main/work") continue;
    found = true;
    CHECK(row["critical_path"].get<double>() == Approx(2 * (o.work + e)).margin(4e-9));
    CHECK(row["mbm_all"].get<double>() == Approx(2 * (o.work + e)).margin(4e-9));
    CHECK(row["mbm_k"].get<double>() == Approx(2 * (o.work + e)).margin(4e-9));
  }
  CHECK(found);

  const std::string table = mbm_text(t, a);
  CHECK(table.find("Maximum Benefit Metric") != std::string::npos);
  CHECK(table.find("main/work") != std::string::npos);
  CHECK(table.find(fmt::format("{:.2f}%", 100 * 2 * (o.work + e) / T)) != std::string::npos);
  const std::string paths = near_critical_text(t, a);
  // The text lists the distinct paths (JSON "distinct_paths"; "paths" keeps paper 001's 4 for the MBM).
  REQUIRE(!pag["distinct_paths"].empty());
  CHECK(pag["distinct_paths"][0]["duration"].get<double>() == Approx(T).margin(1e-8));
  CHECK(paths.find(fmt::format("{} distinct path(s)", pag["distinct_paths"].size())) != std::string::npos);
  CHECK(paths.find("the MBM uses paper 001's 4 paths") != std::string::npos);
  CHECK(paths.find(fmt::format("{:.6f}", pag["critical_path_length"].get<double>())) != std::string::npos);
}

namespace {

Trace two_rank_trace() { return test::pop_two_rank_trace(); }

}  // namespace

TEST_CASE("pop JSON section, windows CSV and text; undefined factors are null / empty") {
  const Trace t = two_rank_trace();
  PopAnalysisOptions opt;
  opt.windows = WindowOptions{0.5, 0};
  const PopAnalysis a = analyze_pop(t, opt);
  const nlohmann::json pop = pop_json(a);
  for (const char* key : {"load_balance", "serialisation", "transfer", "parallel_efficiency", "windows"})
    CHECK(pop.contains(key));
  CHECK(pop["load_balance"].get<double>() == Approx(3.25 / 4.5));
  CHECK(pop["transfer"].get<double>() == Approx(0.75));
  CHECK(pop["ideal_runtime_source"] == "clock replay");
  REQUIRE(pop["windows"].size() == 12);
  const auto& w8 = pop["windows"][8];  // [4, 4.5]: both ranks inside MPI: no useful time
  CHECK(w8["start"].get<double>() == Approx(4));
  CHECK(w8["end"].get<double>() == Approx(4.5));
  CHECK(w8["load_balance"].is_null());
  CHECK(w8["serialisation"].is_null());
  CHECK(w8["parallel_efficiency"].get<double>() == 0);
  const auto& w0 = pop["windows"][0];  // [0, 0.5]: both compute
  CHECK(w0["load_balance"].get<double>() == Approx(1));
  CHECK(w0["serialisation"].get<double>() == Approx(1));
  CHECK(w0["transfer"].get<double>() == Approx(1));

  const std::string csv = pop_windows_csv(a.windows);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line ==
        "start,end,load_balance,serialisation,transfer,parallel_efficiency,communication_efficiency,ideal,"
        "mean_useful,max_useful,min_events");
  int rows = 0;
  std::string row8;
  while (std::getline(in, line)) {
    if (rows == 8) row8 = line;
    ++rows;
  }
  CHECK(rows == 12);
  CHECK(row8.rfind("4.000000000,4.500000000,,,", 0) == 0);

  PopAnalysisOptions ext;
  ext.pop.ideal_runtime = 5.0;
  const PopAnalysis b = analyze_pop(t, ext);
  CHECK(pop_json(b)["ideal_runtime_source"] == "external");
  CHECK(pop_json(b)["transfer"].get<double>() == Approx(5.0 / 6));
  CHECK(pop_json(b)["clock_replay_ideal_runtime"].get<double>() == Approx(4.5));
  CHECK(pop_text(a).find("load balance") != std::string::npos);
  CHECK(pop_text(a).find("12 time windows") != std::string::npos);
}

TEST_CASE("wait_estimate JSON section and ratio table") {
  const Trace t = two_rank_trace();
  const WaitEstimate none = estimate_waits(t);
  const nlohmann::json rows = wait_estimate_json(t, none);
  REQUIRE(rows.size() == 1);  // rank 1's MPI_Recv
  CHECK(rows[0]["callpath"] == "main/MPI_Recv");
  CHECK(rows[0]["rank"] == 1);
  CHECK(rows[0]["estimated"].get<double>() == 0);  // its own minimum
  CHECK(rows[0]["trace_based"].is_null());
  CHECK(rows[0]["pattern"] == "Late Sender");
  TraceBasedWaits given;
  given[{t.ranks[1].events[1].ref, 1}] = 3.0;  // Late Sender: send enter 4 - receive enter 1
  const WaitEstimate with = estimate_waits(t, &given);
  CHECK(wait_estimate_json(t, with)[0]["trace_based"].get<double>() == 3.0);
  const std::string text = wait_estimate_text(t, with);
  CHECK(text.find("Late Sender") != std::string::npos);
  CHECK(text.find("25.000%") != std::string::npos);  // 3 s of the 12 s allocation time
}
