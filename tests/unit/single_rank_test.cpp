// MPI runs without a world communicator (Score-P 1.x defines only the communicators a run used:
// self-like ones for one rank, the halves of a split): valid runs, read with an implied world,
// analysed and replayed.
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

TEST_CASE("a four-rank trace with no communicator of all ranks reads with an implied world, analyses and replays",
          "[io][replay][cli]") {
  // Score-P 1.x defines only the communicators a run used: here the halves {0,1} and {2,3} of a
  // split, on which each pair reduces; no record names a communicator of all four ranks.
  wisp::test::TempDir dir;
  wisp::test::TinyTrace t(4, {{0, 1}, {2, 3}});
  const CommId halves[] = {2, 3};  // after MPI_COMM_WORLD (0) and MPI_COMM_SELF (1)
  for (Rank r = 0; r < 4; ++r) {
    t.work(r, "solve", 0, 100 + 100 * r);  // rank r computes 100 (r + 1) us: ranks 0 and 2 wait
    t.collective(r, "MPI_Allreduce", CollectiveOp::Allreduce, halves[r / 2], 100 + 100 * r, 500, 8);
  }
  Trace trace = t.finish(600);
  Communicator& world = trace.defs.comms[trace.defs.world];
  world.self = true, world.members.clear(), world.name = "MPI_COMM_SELF (2)";  // no world in the archive
  for (CommId c : halves) trace.defs.comms[c].parent = kNone;
  write_otf2(trace, dir / "four");

  const Trace back = read_otf2(dir / "four");
  REQUIRE(back.rank_count() == 4);
  REQUIRE(back.defs.world != kNone);
  CHECK(back.defs.comms[back.defs.world].name == "MPI_COMM_WORLD (implied)");
  CHECK(back.defs.comms[back.defs.world].members == std::vector<Rank>{0, 1, 2, 3});
  CHECK(back.collectives.size() == 2);  // one Allreduce per half, each complete
  for (const CollectiveInstance& c : back.collectives) CHECK(c.complete);

  const auto analyze = run_wisp("analyze --json " + (dir / "four").string());
  INFO(analyze.err);
  REQUIRE(analyze.exit_code == 0);
  const auto j = nlohmann::json::parse(analyze.out);
  CHECK(j["runtime"].get<double>() == Approx(600e-6).margin(1e-9));
  double wait_nxn = 0;  // rank 0 waits 200 - 100 us for rank 1, rank 2 400 - 300 us for rank 3
  for (const auto& row : j["metrics"])
    if (row["metric"] == "mpi_wait_nxn") wait_nxn += row["value"].get<double>();
  CHECK(wait_nxn == Approx(200e-6).margin(1e-9));
  const auto simulate = run_wisp("simulate " + (dir / "four").string() + " -o " + (dir / "sim").string());
  INFO(simulate.err);
  REQUIRE(simulate.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(simulate.out, m, std::regex(R"(identity error ([-+0-9.]+) %)")));
  CHECK(std::abs(std::stod(m[1].str())) <= 0.1);  // percent
}
