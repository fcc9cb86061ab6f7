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
  // A name the system refuses is the same kind of error, not a std::filesystem exception (the scenario
  // fuzzer found one in a platform given as a long quoted string).
  CHECK_THROWS_AS(load_platform(dir / std::string(5000, 'x')), Error);
  CHECK_THROWS_WITH(load_platform(dir / std::string(5000, 'x')), Catch::Contains("File name too long"));
  std::ofstream(dir / "text.xml") << "hello\n";
  CHECK_THROWS_WITH(load_platform(dir / "text.xml"), Catch::Contains("not a SimGrid platform"));
  std::ofstream(dir / "bad.xml") << "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                                    "<prop id=\"wisp:overhead\" value=\"-1\"/>\n</zone></platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "bad.xml"),
                    Catch::Contains("bad.xml line 3: property wisp:overhead has value '-1'"));
  std::ofstream(dir / "unknown.xml")
      << "<platform version=\"4.1\">\n<prop id=\"wisp:speed\" value=\"1\"/>\n</platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "unknown.xml"), Catch::Contains("line 2: unknown property 'wisp:speed'"));
  std::ofstream(dir / "size.xml")
      << "<platform version=\"4.1\">\n<prop id=\"wisp:network-one-size\" value=\"1e18\"/>\n</platform>\n";
  CHECK_THROWS_WITH(load_platform(dir / "size.xml"),
                    Catch::Contains("size.xml line 2: property wisp:network-one-size = 1e18 bytes is larger than any"));
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

// The bundled topologies' shapes (platforms/README.md), by hand from each file's parameters: the
// summed latency of the route from node-0 to node-k as the replay builds it.
//   fat-tree "2;32,32;1,16;1,1", 0.25 us per link: 32 hosts per leaf; within a leaf 2 links, across
//     leaves 4 (host, leaf, spine, leaf, host).
//   dragonfly "8,2;4,2;4,1;8", 0.2 us per link: 8 hosts per router, 4 routers per chassis, 4 chassis
//     per group, 8 groups; host k on router ⌊k/8⌋ mod 4 of chassis ⌊k/32⌋ mod 4 of group ⌊k/128⌋.
//     2 links on one router; within a group +1 to another chassis (same router position), +1 to
//     another router of the chassis; group g reaches group h by its one global link, from router h
//     of its chassis 0 to router g of h's chassis 0, then on as within a group.
//   torus "8,8,16", 0.1 us per link: host k at (k mod 8, ⌊k/8⌋ mod 8, ⌊k/64⌋), one link per hop of
//     the wrap-around distance.
//   crossbar: every host's private link, 0.5 us each way: 1 us between any two.
TEST_CASE("the bundled topologies: which hosts share a leaf, router, chassis or group", "[replay][platform]") {
  gen::HaloOptions h;
  h.dims = {2, 1};
  h.steps = 1;
  h.bytes = 8;
  const Trace t = gen::generate_halo(h);
  auto route = [&](const std::string& platform, int k) {
    ReplayOptions o;
    o.hosts = {"node-0", "node-" + std::to_string(k)};
    return replay(t, load_platform(bundled(platform)), o).statistics.route_latency;
  };
  for (int k : {1, 31}) CHECK(route("fat-tree", k) == Approx(0.5e-6));
  for (int k : {32, 1023}) CHECK(route("fat-tree", k) == Approx(1.0e-6));
  CHECK(route("dragonfly", 7) == Approx(0.4e-6));    // the same router
  CHECK(route("dragonfly", 8) == Approx(0.6e-6));    // another router of the chassis
  CHECK(route("dragonfly", 32) == Approx(0.6e-6));   // router 0 of another chassis
  CHECK(route("dragonfly", 63) == Approx(0.8e-6));   // router 3 of another chassis
  CHECK(route("dragonfly", 128) == Approx(0.8e-6));  // group 1: to router 1, global link, there router 0
  CHECK(route("dragonfly", 200) == Approx(1.2e-6));  // router 1, chassis 2 of group 1: 2 more hops there
  CHECK(route("torus", 1) == Approx(0.1e-6));
  CHECK(route("torus", 7) == Approx(0.1e-6));    // the ring wraps around
  CHECK(route("torus", 31) == Approx(0.4e-6));   // (7, 3, 0): 1 + 3 hops
  CHECK(route("torus", 512) == Approx(0.8e-6));  // (0, 0, 8): 8 hops
  CHECK(route("crossbar", 1023) == Approx(1.0e-6));
}
