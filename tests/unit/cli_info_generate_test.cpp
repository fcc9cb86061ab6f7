// `wisp generate` and `wisp info` end to end through the built binary.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;
using wisp::test::run_wisp;
using wisp::test::TempDir;

TEST_CASE("wisp generate writes a trace that wisp info describes, also as JSON") {
  TempDir dir;
  const auto out = (dir / "imb").string();
  const auto gen = run_wisp("generate imbalance --ranks 4 --iterations 8 --mode dynamic -o " + out);
  REQUIRE(gen.exit_code == 0);
  CHECK_THAT(gen.err, Catch::Contains("wrote"));
  const auto info = run_wisp("info --json " + out);
  REQUIRE(info.exit_code == 0);
  const auto j = nlohmann::json::parse(info.out);
  // 4 ranks; per rank: ProgramBegin/End, main, MPI_Init (4 events), 8 x (work 2 + barrier 4),
  // MPI_Finalize (4 events): 2 + 2 + 4 + 48 + 4 = 60 events.
  CHECK(j["ranks"] == 4);
  CHECK(j["events"]["total"] == 4 * 60);
  CHECK(j["events"]["by_kind"]["MpiCollectiveEnd"] == 4 * 10);
  CHECK(j["collectives"]["instances"] == 10);
  CHECK(j["collectives"]["by_operation"]["BARRIER"] == 8);
  CHECK(j["collectives"]["by_operation"]["CREATE_HANDLE"] == 1);
  CHECK(j["messages"]["matched"] == 0);
  CHECK(j["anomalies"].empty());
  CHECK(j["regions"]["user"] == 2);  // main, work
  const auto text = run_wisp("info " + out);
  CHECK_THAT(text.out, Catch::Contains("ranks         4"));
  CHECK_THAT(text.out, Catch::Contains("8 BARRIER"));
}

TEST_CASE("wisp generate refuses an existing output directory unless forced") {
  TempDir dir;
  const auto out = (dir / "h").string();
  REQUIRE(run_wisp("generate halo --dims 2x2 --steps 2 -o " + out).exit_code == 0);
  const auto again = run_wisp("generate halo --dims 2x2 --steps 2 -o " + out);
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.err, Catch::Contains("exists and is not empty (use --force"));
  CHECK(run_wisp("generate halo --dims 2x2 --steps 2 --force -o " + out).exit_code == 0);
}

TEST_CASE("wisp generate rejects impossible options with one line") {
  TempDir dir;
  const auto bad_mode = run_wisp("generate imbalance --mode sideways -o " + (dir / "x").string());
  CHECK(bad_mode.exit_code == 1);
  CHECK(bad_mode.err ==
        "wisp: error: generate imbalance: --mode must be balanced, static, dynamic or mixed (got 'sideways')\n");
  const auto bad_ranks = run_wisp("generate halo --dims 2x2 --overload-ranks 2-9 -o " + (dir / "y").string());
  CHECK(bad_ranks.exit_code == 1);
  CHECK_THAT(bad_ranks.err, Catch::Contains("rank 9 does not exist"));
  const auto bad_dims = run_wisp("generate halo --dims 4by4 -o " + (dir / "z").string());
  CHECK(bad_dims.exit_code == 1);
  CHECK_THAT(bad_dims.err, Catch::Contains("--dims '4by4'"));
  CHECK_FALSE(std::filesystem::exists(dir / "x"));
}

TEST_CASE("wisp generate refuses negative counts instead of wrapping them around") {
  TempDir dir;
  const auto bytes = run_wisp("generate halo --dims 2x2 --bytes -5 -o " + (dir / "x").string());
  CHECK(bytes.exit_code == 2);
  CHECK_THAT(bytes.err, Catch::Contains("--bytes: must not be negative (got -5)"));
  const auto ranks = run_wisp("generate imbalance --ranks -3 -o " + (dir / "y").string());
  CHECK(ranks.exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "x"));
}
