// A one-rank MPI run whose only communicators are self-like (as Score-P 1.x writes them, with no
// world communicator): a valid run, read with an implied world, analysed and replayed.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <regex>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::run_wisp;

TEST_CASE("a one-rank trace with only self communicators reads with an implied world, analyses and replays",
          "[io][replay][cli]") {
  wisp::test::TempDir dir;
  wisp::test::TinyTrace t(1);
  t.work(0, "init", 0, 200);
  t.collective(0, "MPI_Barrier", CollectiveOp::Barrier, t.world(), 200, 210, 0);
  t.work(0, "solve", 210, 900);
  Trace trace = t.finish(1000);
  trace.defs.comms[trace.defs.world].self = true;  // written as a COMM_SELF group: no world in the archive
  trace.defs.comms[trace.defs.world].members.clear();
  trace.defs.comms[trace.defs.world].name = "MPI_COMM_SELF (1)";
  write_otf2(trace, dir / "one");

  const Trace back = read_otf2(dir / "one");
  REQUIRE(back.rank_count() == 1);
  REQUIRE(back.defs.world != kNone);
  CHECK(back.defs.comms[back.defs.world].name == "MPI_COMM_WORLD (implied)");
  CHECK(back.defs.comms[back.defs.world].members == std::vector<Rank>{0});

  const auto analyze = run_wisp("analyze --json " + (dir / "one").string());
  INFO(analyze.err);
  REQUIRE(analyze.exit_code == 0);
  const auto j = nlohmann::json::parse(analyze.out);
  CHECK(j["runtime"].get<double>() == Approx(1000e-6).margin(1e-9));

  const auto simulate = run_wisp("simulate " + (dir / "one").string() + " -o " + (dir / "sim").string());
  INFO(simulate.err);
  INFO(simulate.out);
  REQUIRE(simulate.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(simulate.out, m, std::regex(R"(identity error ([-+0-9.]+) %)")));
  CHECK(std::abs(std::stod(m[1].str())) <= 0.1);  // percent
  CHECK(read_otf2(dir / "sim").end_time() == Approx(1000e-6).epsilon(0.001));
}
