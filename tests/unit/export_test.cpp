// Exports for other simulators (replay/export.hpp): the GOAL schedule's grammar (LogGOPSim's
// txt2bin) and its operation and dependency counts, derived by hand from the generators'
// programs; the SMPI time-independent trace's files and action counts; what cannot be expressed
// is named. (SMPI's replay of the export: tests/smpi, ctest smpi_ti_agreement.)
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "hand_trace.hpp"
#include "helpers.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/replay/export.hpp"

using namespace wisp;

namespace {

// The generators' model as a platform: L = 1 us, B = 10 GB/s, o = 1 us per call, eager 64 KiB.
ExportPlatform model_platform() {
  ExportPlatform p;
  p.reference_speed = 1e9;
  p.latency = 1e-6;
  p.bandwidth = 1e10;
  p.mpi.default_overhead = 1e-6;
  p.platform_xml = "<platform/>\n";
  return p;
}

struct GoalCounts {
  std::uint32_t ranks = 0;
  std::map<Rank, std::uint64_t> calc, send, recv, deps;
  std::uint64_t total(const std::map<Rank, std::uint64_t>& m) const {
    std::uint64_t s = 0;
    for (const auto& [r, n] : m) s += n;
    return s;
  }
};

// Parses a GOAL file as txt2bin's grammar has it (no indentation, `//` comments at a line's
// start, rank blocks in order, labels defined before they are required); fails the test otherwise.
GoalCounts parse_goal(const std::filesystem::path& file) {
  static const std::regex calc(R"(l(\d+): calc (\d+))");
  static const std::regex message(R"(l(\d+): (send|recv) (\d+)b (to|from) (\d+) tag (\d+))");
  static const std::regex requires_(R"(l(\d+) requires l(\d+))");
  std::ifstream in(file);
  REQUIRE(in);
  GoalCounts c;
  std::string line;
  std::smatch m;
  bool header = true, inside = false;
  Rank rank = 0;
  std::set<std::string> labels;
  while (std::getline(in, line)) {
    INFO(line);
    if (line.rfind("//", 0) == 0) {
      REQUIRE(header);
      continue;
    }
    if (header) {
      REQUIRE(line.rfind("num_ranks ", 0) == 0);
      c.ranks = static_cast<std::uint32_t>(std::stoul(line.substr(10)));
      header = false;
      continue;
    }
    if (!inside) {
      REQUIRE(line == "rank " + std::to_string(rank) + " {");
      inside = true;
      labels.clear();
      continue;
    }
    if (line == "}") {
      inside = false;
      ++rank;
      continue;
    }
    if (std::regex_match(line, m, calc)) {
      REQUIRE(std::stoull(m[2]) > 0);
      labels.insert(m[1]);
      ++c.calc[rank];
    } else if (std::regex_match(line, m, message)) {
      REQUIRE(std::stoull(m[3]) >= 1);  // LogGOPSim charges (s - 1) G: never 0 bytes
      REQUIRE(std::stoul(m[5]) < c.ranks);
      REQUIRE((m[2] == "send") == (m[4] == "to"));
      labels.insert(m[1]);
      ++(m[2] == "send" ? c.send : c.recv)[rank];
    } else {
      REQUIRE(std::regex_match(line, m, requires_));
      REQUIRE(labels.count(m[1]) == 1);  // both defined, the required one first
      REQUIRE(labels.count(m[2]) == 1);
      REQUIRE(std::stoul(m[2]) < std::stoul(m[1]));
      ++c.deps[rank];
    }
  }
  REQUIRE(!inside);
  REQUIRE(rank == c.ranks);
  return c;
}

}  // namespace

TEST_CASE("GOAL export of the halo generator: the operations and dependencies the mapping defines", "[export]") {
  gen::HaloOptions o;  // 4x4 periodic grid: 4 distinct neighbours per rank
  o.steps = 5;
  const Trace t = gen::generate_halo(o);
  test::TempDir dir;
  const ExportResult r = export_goal(t, model_platform(), ExportOptions{}, dir.path() / "halo.goal");
  const GoalCounts c = parse_goal(dir.path() / "halo.goal");
  const std::uint64_t S = o.steps;
  // Per rank: calc = MPI_Init's wait + (compute, boundary) per step; messages = 4 Isend + 4 Irecv
  // per step, plus recursive doubling of the Allreduce over 16 ranks (4 exchanges) per step, plus
  // the dissemination barrier of MPI_Finalize (4 exchanges).
  for (Rank rank = 0; rank < 16; ++rank) {
    CHECK(c.calc.at(rank) == 1 + 2 * S);
    CHECK(c.send.at(rank) == 4 * S + 4 * S + 4);
    CHECK(c.recv.at(rank) == 4 * S + 4 * S + 4);
    // Dependencies: compute needs the Init calc (1st step) or the last exchange (2); the 8
    // requests need compute (8); Waitall makes boundary need compute and the 8 requests (9); the
    // Allreduce's first exchange needs boundary (2), the next three both ops of the previous one
    // (3 x 4); Finalize's barrier: 4 + 3 x 4.
    CHECK(c.deps.at(rank) == (1 + 8 + 9 + 14) + (S - 1) * (2 + 8 + 9 + 14) + 16);
  }
  CHECK(r.operations == c.total(c.calc) + c.total(c.send) + c.total(c.recv));
  CHECK(r.dependencies == c.total(c.deps));
  CHECK(r.left_out.names().empty());
}

TEST_CASE("GOAL export of the barrier imbalance: one calc per work interval, dissemination barriers", "[export]") {
  gen::ImbalanceOptions o;
  o.ranks = 8;
  o.iterations = 6;
  o.mode = "dynamic";
  const Trace t = gen::generate_imbalance(o);
  test::TempDir dir;
  export_goal(t, model_platform(), ExportOptions{}, dir.path() / "imb.goal");
  const GoalCounts c = parse_goal(dir.path() / "imb.goal");
  const std::uint64_t K = o.iterations;
  for (Rank rank = 0; rank < 8; ++rank) {
    CHECK(c.calc.at(rank) == 1 + K);      // Init's wait, then work() per iteration
    CHECK(c.send.at(rank) == 3 * K + 3);  // 3 dissemination rounds per barrier, + Finalize
    CHECK(c.recv.at(rank) == 3 * K + 3);
    CHECK(c.deps.at(rank) == 12 * K + 11);  // (1 + 10) + (K - 1)(2 + 10) + 12
  }
}

TEST_CASE("GOAL export of the wavefront: one send/recv per message, counted from the sweep geometry", "[export]") {
  gen::WavefrontOptions o;
  o.px = 3;
  o.py = 2;
  o.iterations = 2;
  o.blocks = 2;
  const Trace t = gen::generate_wavefront(o);
  test::TempDir dir;
  export_goal(t, model_platform(), ExportOptions{}, dir.path() / "wf.goal");
  const GoalCounts c = parse_goal(dir.path() / "wf.goal");
  const int corners[4][2] = {{+1, +1}, {-1, +1}, {+1, -1}, {-1, -1}};
  const auto inside = [&](int x, int y) { return x >= 0 && y >= 0 && x < 3 && y < 2; };
  std::uint64_t p2p = 0;
  for (Rank rank = 0; rank < 6; ++rank) {
    const int x = static_cast<int>(rank % 3), y = static_cast<int>(rank / 3);
    // The rank's program as tokens: r(eceive), c(ompute), s(end), a(llreduce); a calc is a run of
    // c's (computation between calls merges), plus one for MPI_Init's wait.
    std::string program;
    for (std::uint32_t it = 0; it < o.iterations; ++it) {
      for (const auto& d : corners)
        for (std::uint32_t b = 0; b < o.blocks; ++b) {
          if (inside(x - d[0], y)) program += 'r';
          if (inside(x, y - d[1])) program += 'r';
          program += 'c';
          if (inside(x + d[0], y)) program += 's';
          if (inside(x, y + d[1])) program += 's';
        }
      program += 'a';
    }
    std::uint64_t calcs = 1, sends = 0;
    for (std::size_t i = 0; i < program.size(); ++i) {
      calcs += program[i] == 'c' && (i == 0 || program[i - 1] != 'c');
      sends += program[i] == 's';
    }
    CHECK(c.calc.at(rank) == calcs);
    p2p += sends;
  }
  // Recursive doubling over 6 ranks (MPICH: 4 + 2 remaining): 2 + 4 x 2 + 2 = 12 messages per
  // Allreduce; the Finalize barrier: 3 rounds x 6 ranks.
  CHECK(c.total(c.send) == p2p + o.iterations * 12 + 18);
  CHECK(c.total(c.recv) == c.total(c.send));
}

TEST_CASE("GOAL export: picoseconds, the LogGOP header and an empty message written as one byte", "[export]") {
  gen::ImbalanceOptions o;
  o.ranks = 4;
  o.iterations = 2;
  o.mode = "balanced";
  o.work = 0.001;
  const Trace t = gen::generate_imbalance(o);
  test::TempDir dir;
  ExportOptions ps;
  ps.picoseconds = true;
  export_goal(t, model_platform(), ps, dir.path() / "b.goal");
  std::ifstream in(dir.path() / "b.goal");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  CHECK(s.find("//   L = 1e+06 ps") != std::string::npos);
  CHECK(s.find("//   G = 100 ps/byte") != std::string::npos);
  CHECK(s.find("-L 1000000 -o 1000000 -g 0 -G 100 -O 0 -S 65536") != std::string::npos);
  CHECK(s.find("calc 1000000000\n") != std::string::npos);  // work() of 1 ms in ps
  CHECK(s.find("send 1b to") != std::string::npos);         // the barrier's empty messages
}

TEST_CASE("SMPI time-independent export: files, actions per rank and the smpirun command", "[export]") {
  gen::HaloOptions o;
  o.steps = 3;
  const Trace t = gen::generate_halo(o);
  test::TempDir dir;
  const auto out = dir.path() / "ti";
  const ExportResult r = export_smpi_ti(t, model_platform(), ExportOptions{}, out, false);
  std::ifstream index(out / "index.txt"), hosts(out / "hostfile.txt");
  std::string line;
  std::uint32_t files = 0, host_lines = 0;
  while (std::getline(index, line)) CHECK(line == "rank-" + std::to_string(files++) + ".txt");
  while (std::getline(hosts, line)) CHECK(line == "node-" + std::to_string(host_lines++));
  CHECK(files == 16);
  CHECK(host_lines == 16);
  CHECK(std::filesystem::exists(out / "platform.xml"));
  const auto perms = std::filesystem::status(out / "smpirun.sh").permissions();
  CHECK((perms & std::filesystem::perms::owner_exec) != std::filesystem::perms::none);
  std::uint64_t lines = 0;
  for (Rank rank = 0; rank < 16; ++rank) {
    std::ifstream in(out / ("rank-" + std::to_string(rank) + ".txt"));
    std::map<std::string, std::uint64_t> actions;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string who, action;
      words >> who >> action;
      REQUIRE(who == std::to_string(rank));
      ++actions[action];
      ++lines;
    }
    const std::uint64_t S = o.steps;
    CHECK(actions["init"] == 1);
    CHECK(actions["compute"] == 2 * S);  // compute() and boundary() per step
    CHECK(actions["irecv"] == 4 * S);
    CHECK(actions["isend"] == 4 * S);
    CHECK(actions["waitall"] == S);    // MPI_Waitall completes every open request
    CHECK(actions["allreduce"] == S);  // on MPI_COMM_WORLD: SMPI's action
    CHECK(actions["barrier"] == 1);    // MPI_Finalize's
    CHECK(actions["finalize"] == 1);
    CHECK(actions["sleep"] == 10 * S + 3);  // o per call (Init, 10 per step, Finalize), Init's wait
    CHECK(actions.size() == 9);
  }
  CHECK(r.operations == lines);

  ExportOptions messages;
  messages.collectives_as_messages = true;
  export_smpi_ti(t, model_platform(), messages, dir.path() / "ti-messages", false);
  std::ifstream in(dir.path() / "ti-messages" / "rank-0.txt");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str().find("allreduce") == std::string::npos);
  CHECK(text.str().find("barrier") == std::string::npos);
  CHECK_THROWS_WITH(export_smpi_ti(t, model_platform(), ExportOptions{}, out, false), Catch::Contains("exists"));
}

TEST_CASE("GOAL and SMPI exports of a ring of Sendrecv and an Ssend", "[export]") {
  // 3 ranks: work, then MPI_Sendrecv to the right neighbour from the left one (one send and one
  // receive each, both after the work), then rank 0 MPI_Ssends 8 bytes to rank 1.
  test::HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) {
    h.work(r, 0, 1, "work");
    h.sendrecv(r, 1, 2, (r + 1) % 3, (r + 2) % 3, 5, 1024);
  }
  h.ssend(0, 2, 3, 1, 6, 8);
  h.recv(1, 2, 3, 0, 6, 8);
  const Trace t = h.finish();
  test::TempDir dir;
  const ExportResult g = export_goal(t, model_platform(), ExportOptions{}, dir.path() / "ring.goal");
  const GoalCounts c = parse_goal(dir.path() / "ring.goal");
  CHECK(c.total(c.send) == 3 + 1);
  CHECK(c.total(c.recv) == 3 + 1);
  CHECK(c.calc.at(2) == 1);
  // Rank 2: calc (l0); send (l1) and recv (l2) both require l0: 2 dependencies.
  CHECK(c.deps.at(2) == 2);
  // Rank 0: calc, send + recv (2), then the Ssend requires both (2).
  CHECK(c.deps.at(0) == 4);
  REQUIRE(g.left_out.names().size() == 1);
  CHECK_THAT(g.left_out.names()[0], Catch::StartsWith("1 synchronous send(s)"));

  const ExportResult ti = export_smpi_ti(t, model_platform(), ExportOptions{}, dir.path() / "ti", false);
  CHECK(ti.left_out.synchronous_sends == 1);
  std::ifstream in(dir.path() / "ti" / "rank-0.txt");
  std::stringstream text;
  text << in.rdbuf();
  // Both sides of the Sendrecv are posted before either is waited for (a blocking send first
  // could deadlock a ring of rendezvous messages); the Ssend is a plain send.
  CHECK_THAT(text.str(), Catch::Contains("0 isend 1 0 1024\n0 irecv 2 0 1024\n0 wait 0 1 0\n0 wait 2 0 0\n"));
  CHECK_THAT(text.str(), Catch::Contains("0 send 1 1 8\n"));
}

TEST_CASE("Exports name what the format cannot express: threads of a hybrid trace", "[export]") {
  gen::HybridOptions o;
  o.ranks = 2;
  o.threads = 3;
  o.iterations = 4;
  const Trace t = gen::generate_hybrid(o);
  test::TempDir dir;
  const ExportResult r = export_goal(t, model_platform(), ExportOptions{}, dir.path() / "h.goal");
  REQUIRE(r.left_out.names().size() == 1);
  CHECK_THAT(r.left_out.names()[0], Catch::StartsWith("4 thread(s) with"));
  CHECK(r.left_out.thread_events > 0);
  parse_goal(dir.path() / "h.goal");  // the rest is written
}
