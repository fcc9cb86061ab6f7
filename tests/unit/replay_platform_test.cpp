// Platforms: the bundled XML files, generated topologies, wisp:* properties and their errors.
#include <catch2/catch.hpp>

#include <fstream>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;

namespace {

// 9 ranks, 3 steps of 10 ms compute + 1 ms boundary, 16 KiB halo messages: at least 34 ms.
Trace small_halo() {
  gen::HaloOptions o;
  o.dims = {3, 3};
  o.steps = 3;
  return gen::generate_halo(o);
}

std::filesystem::path bundled(const std::string& name) {
  return std::filesystem::path(WISP_SOURCE_DIR) / "platforms" / (name + ".xml");
}

}  // namespace

TEST_CASE("every bundled platform loads and replays", "[replay][platform]") {
  const Trace t = small_halo();
  for (const char* name : {"crossbar", "fat-tree", "torus", "dragonfly", "ideal"}) {
    INFO(name);
    const Platform p = load_platform(bundled(name));
    CHECK(p.mpi.eager_threshold == 65536);
    const ReplayResult r = replay(t, p);
    CHECK(r.runtime > 0.034);
    CHECK(r.runtime < 0.035);
  }
}

TEST_CASE("the ideal network leaves only computation and synchronisation", "[replay][platform]") {
  // MPI_Init as traced (ready 1 us + 1 ms), then 3 x (10 + 1) ms; messages and overheads cost
  // nothing: 34.001 ms.
  const ReplayResult r = replay(small_halo(), load_platform(bundled("ideal")));
  CHECK(r.runtime == Approx(0.034001).epsilon(1e-9));
}

TEST_CASE("generated topologies build from their parameters", "[replay][platform]") {
  const Trace t = small_halo();
  struct Case {
    Topology topology;
    const char* parameters;
  };
  for (const Case& c : {Case{Topology::Crossbar, ""}, Case{Topology::Torus, "3,3"},
                        Case{Topology::FatTree, "2;3,3;1,2;1,1"}, Case{Topology::Dragonfly, "1,1;1,1;3,1;3"}}) {
    INFO(to_string(c.topology));
    Platform p;
    p.topology = c.topology;
    p.topology_parameters = c.parameters;
    p.latency = 1e-6;
    p.bandwidth = 1e10;
    const ReplayResult r = replay(t, p);
    CHECK(r.runtime > 0.034);
    CHECK(r.runtime < 0.035);
  }
  Platform bad;
  bad.topology = Topology::Torus;
  CHECK_THROWS_WITH(replay(t, bad), Catch::Contains("needs topology parameters"));
  bad.topology_parameters = "3,x";
  CHECK_THROWS_WITH(replay(t, bad), Catch::Contains("torus parameters '3,x' are not positive integers"));
  CHECK(topology_from_name("fat-tree") == Topology::FatTree);
  CHECK_THROWS_WITH(topology_from_name("ring"), Catch::Contains("unknown topology 'ring'"));
}

TEST_CASE("rank mapping names hosts of the platform", "[replay][platform]") {
  const Trace t = small_halo();
  ReplayOptions o;
  o.hosts = {"node-0", "nowhere"};
  CHECK_THROWS_WITH(replay(t, load_platform(bundled("crossbar")), o),
                    Catch::Contains("host 'nowhere' of the rank mapping is not in the platform"));
  test::TempDir dir;
  std::ofstream(dir / "hosts") << "# two ranks per host\nnode-0:2\n\nnode-5:2 # comment\nnode-9\n";
  const auto hosts = read_hostfile(dir / "hosts");
  CHECK(hosts == std::vector<std::string>{"node-0", "node-0", "node-5", "node-5", "node-9"});
  std::ofstream(dir / "bad") << "node-0:x\n";
  CHECK_THROWS_WITH(read_hostfile(dir / "bad"), Catch::Contains("line 1: 'node-0:x' is not like name or name:N"));
}

TEST_CASE("platform files: missing, not SimGrid, bad wisp properties", "[replay][platform]") {
  test::TempDir dir;
  CHECK_THROWS_WITH(load_platform(dir / "none.xml"), Catch::Contains("no such file"));
  std::ofstream(dir / "text.xml") << "hello\n";
  CHECK_THROWS_WITH(load_platform(dir / "text.xml"), Catch::Contains("not a SimGrid platform"));
  std::ofstream(dir / "bad.xml") << "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                                    "<prop id=\"wisp:overhead\" value=\"-1\"/>\n</zone></platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "bad.xml"),
                    Catch::Contains("bad.xml line 3: property wisp:overhead has value '-1'"));
  std::ofstream(dir / "unknown.xml")
      << "<platform version=\"4.1\">\n<prop id=\"wisp:speed\" value=\"1\"/>\n</platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "unknown.xml"), Catch::Contains("line 2: unknown property 'wisp:speed'"));
  std::ofstream(dir / "factors.xml")
      << "<platform version=\"4.1\">\n<prop id=\"wisp:size-factors:node-1\" value=\"17:1.5;18:0.5\"/>\n"
         "<prop id=\"wisp:overhead:MPI_Send\" value=\"2e-6\"/>\n</platform>\n";
  const Platform p = load_platform(dir / "factors.xml");
  CHECK(p.size_factors.at("node-1").at(17) == 1.5);
  CHECK(p.mpi.overhead("MPI_Send") == 2e-6);
  CHECK(p.mpi.overhead("MPI_Recv") == 0);
}

TEST_CASE("size factors scale a message's simulated bytes", "[replay][platform]") {
  using namespace wisp::test;
  TinyTrace t(2);
  t.call(0, "MPI_Send", 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, 2000); });
  t.call(1, "MPI_Recv", 3000, 3100, [&](RankBuilder& b) { b.recv(us(3100), 0, t.world(), 5, 2000); });
  Platform p = tiny_platform(2, 1, 1000);
  p.size_factors["node-1"][11] = 3.0;  // 2000 bytes is class 11: simulated as 6000 bytes
  const ReplayResult r = replay(t.finish(4000), p);
  CHECK(call_leave(r.trace, 1, 0) == Approx(3001 + 10 + 6));
}
