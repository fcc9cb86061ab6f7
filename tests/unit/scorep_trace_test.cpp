// The real Score-P archives in tests/data, checked against what otf2-print (OTF2's own
// tool) prints for them: event counts per kind and rank, every message's pairing, the clock
// conversion of every timestamp. Skipped with a clear note when the shared traces are absent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "helpers.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;

namespace {

struct PrintedEvent {
  std::string kind;
  Rank location;
  std::uint64_t tick;
  std::string rest;
};

std::vector<PrintedEvent> otf2_print(const std::filesystem::path& anchor) {
  const std::string cmd = "otf2-print " + anchor.string() + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::vector<PrintedEvent> out;
  char line[4096];
  const std::regex event(R"(^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$)");
  while (fgets(line, sizeof line, pipe)) {
    line[std::strcspn(line, "\n")] = '\0';
    std::cmatch m;
    if (std::regex_match(line, m, event) && m[1] != "ADDITIONAL")
      out.push_back({m[1], static_cast<Rank>(std::stoul(m[2])), std::stoull(m[3]), m[4]});
  }
  pclose(pipe);
  return out;
}

const std::map<std::string, EventKind> kKinds = {{"PROGRAM_BEGIN", EventKind::ProgramBegin},
                                                 {"PROGRAM_END", EventKind::ProgramEnd},
                                                 {"ENTER", EventKind::Enter},
                                                 {"LEAVE", EventKind::Leave},
                                                 {"MPI_SEND", EventKind::MpiSend},
                                                 {"MPI_RECV", EventKind::MpiRecv}};

}  // namespace

TEST_CASE("Score-P ping-pong: counts, clock and matches agree with otf2-print") {
  const auto dir = test::real_trace("scorep-ping-pong");
  const Trace t = read_otf2(dir);
  const auto printed = otf2_print(dir / "traces.otf2");
  REQUIRE(printed.size() == 120);
  REQUIRE(t.rank_count() == 2);
  CHECK(t.defs.clock.ticks_per_second == 2095197216);
  CHECK(t.defs.clock.global_offset == 7397466976977800);
  CHECK(t.defs.creator == "Score-P 7.1");

  // Same events, same order, same kinds; every time is (tick - offset) / resolution.
  std::map<Rank, std::size_t> next;
  for (const auto& p : printed) {
    REQUIRE(kKinds.count(p.kind) == 1);
    const Event& e = t.ranks[p.location].events.at(next[p.location]++);
    CHECK(e.kind == kKinds.at(p.kind));
    CHECK(e.time == static_cast<double>(p.tick - 7397466976977800) / 2095197216.0);
  }
  CHECK(next[0] == 60);
  CHECK(next[1] == 60);

  // Messages: pair the printed sends and receives per (source, dest, tag) in order, then
  // compare with wisp's matching.
  const std::regex send(R"(Receiver: (\d+) .*Tag: (\d+), Length: (\d+))");
  const std::regex recv(R"(Sender: (\d+) .*Tag: (\d+), Length: (\d+))");
  std::map<std::tuple<Rank, Rank, int>, std::vector<std::pair<std::uint64_t, std::uint64_t>>> sends, recvs;
  for (const auto& p : printed) {
    std::smatch m;
    if (p.kind == "MPI_SEND" && std::regex_search(p.rest, m, send))
      sends[{p.location, std::stoul(m[1]), std::stoi(m[2])}].push_back({p.tick, std::stoull(m[3])});
    if (p.kind == "MPI_RECV" && std::regex_search(p.rest, m, recv))
      recvs[{std::stoul(m[1]), p.location, std::stoi(m[2])}].push_back({p.tick, std::stoull(m[3])});
  }
  REQUIRE(t.messages.size() == 16);
  std::map<std::tuple<Rank, Rank, int>, std::size_t> seen;
  for (const Message& m : t.messages) {
    const P2P& s = t.send_of(m);
    const P2P& r = t.recv_of(m);
    const auto key = std::make_tuple(m.sender, m.receiver, s.tag);
    const std::size_t k = seen[key]++;
    const auto& expected_send = sends.at(key).at(k);
    const auto& expected_recv = recvs.at(key).at(k);
    CHECK(t.defs.clock.to_ticks(t.event(m.sender, s.event).time) == expected_send.first);
    CHECK(t.defs.clock.to_ticks(t.event(m.receiver, r.event).time) == expected_recv.first);
    CHECK(s.bytes == expected_send.second);
    CHECK(r.bytes == expected_recv.second);
    CHECK(t.defs.comms[s.comm].name == "MPI_COMM_WORLD");
    CHECK(s.tag == (m.sender == 0 ? 10 : 20));
  }
  CHECK(t.anomalies.total() == 0);

  // Regions: main is a user function, MPI_Init/Finalize are MPI.
  CHECK(t.defs.regions[*t.defs.find_region("int main(int, char**)")].kind == RegionKind::User);
  CHECK(t.defs.regions[*t.defs.find_region("MPI_Init")].kind == RegionKind::MpiInitFinalize);
  CHECK(t.defs.regions[*t.defs.find_region("MPI_Finalize")].kind == RegionKind::MpiInitFinalize);
  CHECK(t.defs.regions[*t.defs.find_region("MPI_Send")].mpi == MpiFunction::Send);
  CHECK(t.defs.callpath_name(t.ranks[0].events[3].ref) == "int main(int, char**)/MPI_Init");
  CHECK(t.ranks[0].mpi_calls.size() == 20);  // Init, Comm_size, Comm_rank, 8 Send, 8 Recv, Finalize
}

namespace {

// `otf2-print -G` lines of one kind prefix (CART_, GROUP, COMM) with the <id> references removed:
// ids differ between writers, names, sizes, periodicity and coordinates must not.
std::vector<std::string> printed_definitions(const std::filesystem::path& anchor, const std::string& prefix) {
  const std::string cmd = "otf2-print -G " + anchor.string() + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::vector<std::string> out;
  char line[4096];
  const std::regex id(R"( ?<\d+>)"), space(R"(\s+)");
  while (fgets(line, sizeof line, pipe)) {
    line[std::strcspn(line, "\n")] = '\0';
    if (std::strncmp(line, prefix.c_str(), prefix.size()) == 0)
      out.push_back(std::regex_replace(std::regex_replace(line, id, ""), space, " "));
  }
  pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("Cartesian topologies: the simulated ping-pong prints the same CART_* definitions as Score-P's") {
  const auto dir = test::real_trace("scorep-ping-pong");
  const Trace t = read_otf2(dir);
  // Score-P's "Process x Thread" topology on its measurement-system communicator of CPU locations.
  REQUIRE(t.defs.cart_dimensions.size() == 2);
  CHECK(t.defs.cart_dimensions[0].name == "Process");
  CHECK(t.defs.cart_dimensions[0].size == 2);
  CHECK_FALSE(t.defs.cart_dimensions[0].periodic);
  CHECK(t.defs.cart_dimensions[1].name == "Thread");
  CHECK(t.defs.cart_dimensions[1].size == 1);
  REQUIRE(t.defs.cart_topologies.size() == 1);
  CHECK(t.defs.cart_topologies[0].name == "Process x Thread");
  REQUIRE(t.defs.cart_topologies[0].on_locations);
  const LocationComm& comm = t.defs.location_comms.at(t.defs.cart_topologies[0].comm);
  CHECK(comm.name == "Process x Threads CPU Locations");
  CHECK(comm.members.size() == 2);
  REQUIRE(t.defs.cart_coordinates.size() == 2);
  CHECK(t.defs.cart_coordinates[1].rank == 1);
  CHECK(t.defs.cart_coordinates[1].coordinates == std::vector<std::uint32_t>{1, 0});

  test::TempDir tmp;
  const auto r = test::run_wisp("simulate " + dir.string() + " -o " + (tmp / "sim").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto before = printed_definitions(dir / "traces.otf2", "CART_");
  CHECK(before.size() == 5);  // 2 dimensions, 1 topology, 2 coordinates
  CHECK(printed_definitions(tmp / "sim" / "traces.otf2", "CART_") == before);
  // The communicator keeps its name and its groups their names and paradigm.
  const auto groups = printed_definitions(tmp / "sim" / "traces.otf2", "GROUP");
  CHECK(std::count_if(groups.begin(), groups.end(), [](const std::string& g) {
          return g.find("Name: \"PROCESSXTHREADS_GROUP\", Type: COMM_GROUP, Paradigm: MEASUREMENT_SYSTEM") !=
                 std::string::npos;
        }) == 1);
}

TEST_CASE("Cartesian topologies: Sweep3D's 6 ranks written back print the same CART_* definitions") {
  const auto dir = test::real_trace("apps/sweep3d_50c_6r");
  test::TempDir tmp;
  write_otf2(read_otf2(dir), tmp / "out");
  const auto before = printed_definitions(dir / "traces.otf2", "CART_");
  CHECK(before.size() == 9);  // 2 dimensions, 1 topology, 6 coordinates
  CHECK(printed_definitions(tmp / "out" / "traces.otf2", "CART_") == before);
}
