// Nodes, cores and placement: a generated 4-rank halo on 2 nodes x 2 cores, block against cyclic,
// replayed model-only; runtimes and the bytes that cross nodes derived by hand from the model.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <memory>

#include "hand_trace.hpp"
#include "helpers.hpp"
#include "wisp/error.hpp"
#include "wisp/replay/placement.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/scenario/network_scaling.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/scenario_writer.hpp"
#include "wisp/scenario/trace_source.hpp"

using namespace wisp;
using wisp::test::TempDir;

TEST_CASE("place_ranks: cyclic deals ranks out, block fills each host's cores", "[replay][placement]") {
  CHECK(place_ranks(Placement::Cyclic, {2, 2}, 4) == std::vector<std::size_t>{0, 1, 0, 1});
  CHECK(place_ranks(Placement::Block, {2, 2}, 4) == std::vector<std::size_t>{0, 0, 1, 1});
  CHECK(place_ranks(Placement::Block, {3, 1}, 4) == std::vector<std::size_t>{0, 0, 0, 1});
  // More ranks than cores: block starts again at the first host.
  CHECK(place_ranks(Placement::Block, {1, 1}, 3) == std::vector<std::size_t>{0, 1, 0});
  CHECK(placement_from_name("block") == Placement::Block);
  // Traced: the k-th node name on host k mod H, on hosts of several cores.
  CHECK(traced_placement({"a", "a", "b", "b"}, {2, 2}) == std::vector<std::size_t>{0, 0, 1, 1});
  CHECK(traced_placement({"b", "a", "b", "c"}, {2, 2}) == std::vector<std::size_t>{0, 1, 0, 0});
  // One core per host (a network per rank, as calibrated), or no node names: cyclic.
  CHECK(traced_placement({"a", "a", "a", "a"}, {1, 1, 1, 1}) == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(traced_placement({"", "", "", ""}, {2, 2}) == std::vector<std::size_t>{0, 1, 0, 1});
  CHECK_THROWS_WITH(placement_from_name("scatter"), Catch::Contains("unknown placement 'scatter'"));
}

namespace {

// The halo generator on a ring of 4 (--dims 4x1): each step `w` of compute, then every rank sends
// M bytes to both neighbours (rendezvous: M > the eager threshold) and waits for all, then an
// MPI_Allreduce of 8 bytes; MPI_Init lasts 1.001 ms as traced, MPI_Finalize is a barrier.
constexpr int kSteps = 5;
constexpr double kWork = 1e-3, kBytes = 1e6;
constexpr double L = 10e-6, B = 1e9;    // between nodes: latency [s], bandwidth [bytes/s]
constexpr double Li = 1e-6, Bi = 1e10;  // inside a node
constexpr double kInit = 1.001e-3;

std::string scenario_text(const std::string& placement) {
  return fmt::format(R"(wisp: 1
name: placement
trace:
  generate: halo --dims 4x1 --steps {} --work {} --boundary-work 0 --bytes {}
platform: {{nodes: 2, cores: 2, latency: {}, bandwidth: {}, intra: {{latency: {}, bandwidth: {}}}, overhead: 0}}
replay: {{costs: model, interval: false}}
transforms:
  - placement: {}
)",
                     kSteps, kWork, kBytes, L, B, Li, Bi, placement);
}

PointResult run(const std::string& placement, const std::string& platform_file = "",
                const std::vector<std::string>& traced_nodes = {}) {
  TempDir dir;
  std::string text = scenario_text(placement);
  if (!platform_file.empty()) {
    const auto from = text.find("platform: "), to = text.find('\n', from);
    text.replace(from, to - from, "platform: {file: \"" + platform_file + "\"}");
  }
  const Scenario s = parse_scenario(text, dir / "placement.yaml");
  ScenarioTrace in = load_trace(s);
  for (Rank r = 0; r < traced_nodes.size(); ++r) in.trace.defs.ranks[r].node = traced_nodes[r];
  return run_point(s, in.trace);
}

// The halo above on contention-free links, every call costing `over` and every message `lat` +
// bytes / `bw`. A step: compute w; Irecv, Irecv, Isend, Isend, each paying its overhead before it
// posts, so the second Isend posts at w + 4 over and its transfer (rendezvous: every Irecv is
// posted by then) ends lat + M/bw later, after Waitall's own overhead; the Allreduce pays `over`
// and two exchange rounds of 8 bytes. MPI_Finalize pays `over` and two barrier rounds of empty
// messages.
double halo_by_hand(double over, double lat, double bw) {
  return kInit + kSteps * (kWork + 5 * over + 3 * lat + kBytes / bw + 16 / bw) + over + 2 * lat;
}
constexpr double o = 2e-6, oi = 0.5e-6;  // a call's overhead between nodes, inside one

}  // namespace

TEST_CASE("placement: block against cyclic on 2 nodes x 2 cores, as derived by hand", "[scenario][placement]") {
  // Every link is shared fairly by the flows on it (max-min, CM02, no cross traffic); each node has
  // an up link, a down link and one link inside it.
  // Halo step: all 8 messages start together. Block (node 0: ranks 0 1, node 1: ranks 2 3): 0->3
  // and 1->2 share node 0's up link (L + 2M/B), 0->1 and 1->0 its inner link (Li + 2M/Bi, shorter).
  // Cyclic (node 0: ranks 0 2): all 4 messages node 0 sends share its up link: L + 4M/B.
  const double halo_block = L + 2 * kBytes / B, halo_cyclic = L + 4 * kBytes / B;
  // Allreduce, recursive doubling: round 1 pairs 0-1 and 2-3, round 2 pairs 0-2 and 1-3. Either
  // placement has one round inside the nodes and one between them, two flows per link each.
  const double allreduce = Li + 2 * 8 / Bi + L + 2 * 8 / B;
  // Finalize, a dissemination barrier of empty messages: rank r hears from r-1, then r-2. Block:
  // rank 0 hears from 3 then 2 (2L); cyclic: from 3 (another node), then 2 (its own): L + Li.
  const double block = kInit + kSteps * (kWork + halo_block + allreduce) + 2 * L;
  const double cyclic = kInit + kSteps * (kWork + halo_cyclic + allreduce) + L + Li;

  const PointResult b = run("block");
  const PointResult c = run("cyclic");
  // The identity runs where the trace ran its ranks: the generator's model gives each its own
  // node, the first two nodes' ranks (0 and 1) on node-0 and node-1, the next two again so (cyclic).
  CHECK(b.identity == Approx(cyclic).margin(1e-9));
  CHECK(b.scenario == Approx(block).margin(1e-9));
  CHECK(c.scenario == Approx(cyclic).margin(1e-9));
  CHECK(c.gain() == Approx(0).margin(1e-12));

  // Bytes between nodes: block, per step the 4 halo messages across (0->3, 1->2, 2->1, 3->0) and
  // the 4 allreduce messages of the round between nodes; cyclic, all 8 halo messages.
  CHECK(b.scenario_replay.statistics.bytes_between_hosts == kSteps * (4 * 1000000 + 4 * 8));
  CHECK(c.scenario_replay.statistics.bytes_between_hosts == kSteps * (8 * 1000000 + 4 * 8));
  CHECK(b.identity_replay.statistics.rank_hosts == std::vector<std::string>{"node-0", "node-1", "node-0", "node-1"});
  CHECK(b.scenario_replay.statistics.rank_hosts == std::vector<std::string>{"node-0", "node-0", "node-1", "node-1"});
}

TEST_CASE("placement: errors name the file and place", "[scenario][placement]") {
  TempDir dir;
  const auto fails = [&](const std::string& text) { return [&dir, text] { parse_scenario(text, dir / "bad.yaml"); }; };
  const std::string head = "wisp: 1\nname: p\ntrace: t.otf2\n";
  CHECK_THROWS_WITH(fails(head + "transforms:\n  - placement: scatter\n")(),
                    Catch::Contains("bad.yaml:5:16") && Catch::Contains("unknown placement 'scatter'"));
  CHECK_THROWS_WITH(fails(head + "transforms:\n  - placement: {file: x}\n")(), Catch::Contains("unknown key 'file'"));
  CHECK_THROWS_WITH(fails(head + "platform: {cores: 1.5}\n")(), Catch::Contains("cores must be a whole number"));
  CHECK_THROWS_WITH(fails(head + "platform: {intra: {latency: 1e-6}}\n")(),
                    Catch::Contains("intra needs latency and bandwidth"));
  CHECK_THROWS_WITH(fails(head + "platform: {nodes: 2, hosts: 2}\n")(), Catch::Contains("nodes or hosts"));
}

TEST_CASE("placement: the same nodes written as SimGrid XML replay alike", "[scenario][placement]") {
  Platform p;
  p.hosts = 2, p.cores = 2, p.latency = L, p.bandwidth = B, p.intra = Platform::NodeNetwork{Li, Bi};
  const std::string xml = platform_xml(p);
  CHECK_THAT(xml, Catch::Contains("<route src=\"node-1\" dst=\"node-1\""));
  TempDir dir;
  const auto file = dir / "nodes.xml";
  std::ofstream(file) << xml;
  const PointResult generated = run("block"), written = run("block", file.string());
  CHECK(written.identity == Approx(generated.identity).epsilon(1e-12));
  CHECK(written.scenario == Approx(generated.scenario).epsilon(1e-12));
  CHECK(written.scenario_replay.statistics.bytes_between_hosts ==
        generated.scenario_replay.statistics.bytes_between_hosts);
}

TEST_CASE("placement: a sweep over block and cyclic, written back as it was read", "[scenario][placement]") {
  TempDir dir;
  const Scenario s = parse_scenario(scenario_text("block") + "sweep:\n  transforms[0].placement: [cyclic, block]\n",
                                    dir / "sweep.yaml");
  const auto points = sweep_points(s);
  REQUIRE(points.size() == 2);
  const Scenario cyclic = sweep_point(s, points[0]), block = sweep_point(s, points[1]);
  REQUIRE(cyclic.transforms.size() == 1);
  CHECK(cyclic.transforms[0].kind == TransformKind::Placement);
  CHECK(cyclic.transforms[0].placement == Placement::Cyclic);
  CHECK(block.transforms[0].placement == Placement::Block);
  // The writer's form parses back to the same placement, and to the same generated platform.
  const Scenario again = parse_scenario(scenario_yaml(block), dir / "again.yaml");
  CHECK(again.transforms[0].placement == Placement::Block);
  CHECK(again.platform.cores == 2);
  REQUIRE(again.platform.intra);
  CHECK(again.platform.intra->latency == Li);
}

TEST_CASE("placement: the identity keeps the trace's own placement", "[scenario][placement]") {
  // Ranks 0 and 1 traced on one node, 2 and 3 on another: the identity is the block placement.
  const PointResult r = run("cyclic", "", {"n1", "n1", "n2", "n2"});
  CHECK(r.identity_replay.statistics.rank_hosts == std::vector<std::string>{"node-0", "node-0", "node-1", "node-1"});
  CHECK(r.identity == Approx(run("block").scenario).epsilon(1e-12));
  CHECK(r.scenario_replay.statistics.rank_hosts == std::vector<std::string>{"node-0", "node-1", "node-0", "node-1"});
}

TEST_CASE("placement: inside a node every topology takes the node's own network", "[scenario][placement]") {
  // All 4 ranks on node-0 (4 cores, block): every message stays inside it, so each topology between
  // the nodes gives the crossbar's runtime.
  const auto runtime = [](const std::string& topology) {
    TempDir dir;
    std::string text = scenario_text("block");
    const auto at = text.find("nodes: 2, cores: 2");
    text.replace(at, std::string("nodes: 2, cores: 2").size(), "nodes: 2, cores: 4" + topology);
    const Scenario s = parse_scenario(text, dir / "topology.yaml");
    const PointResult r = run_point(s, load_trace(s).trace);
    CHECK(r.scenario_replay.statistics.bytes_between_hosts == 0);
    return r.scenario;
  };
  const double crossbar = runtime("");
  CHECK(runtime(", topology: torus, parameters: \"2\"") == Approx(crossbar).epsilon(1e-12));
  CHECK(runtime(", topology: fat-tree, parameters: \"1;2;1;1\"") == Approx(crossbar).epsilon(1e-12));
  CHECK(runtime(", topology: dragonfly, parameters: \"1,1;1,1;1,1;2\"") == Approx(crossbar).epsilon(1e-12));
  // By hand: the 8 halo messages share the inner link (Li + 8M/Bi), so do the 4 of each allreduce
  // round (Li + 4 * 8/Bi); Finalize's two rounds of empty messages take Li each.
  CHECK(crossbar == Approx(kInit + kSteps * (kWork + Li + 8 * kBytes / Bi + 2 * (Li + 32 / Bi)) + 2 * Li).margin(1e-9));
}

TEST_CASE("placement: a call whose messages stay on its node pays the node's own overhead", "[scenario][placement]") {
  // Contention-free links, every call costing o between nodes and oi inside one (intra overhead).
  const auto runtime = [&](const std::string& nodes) {
    TempDir dir;
    std::string text = scenario_text("traced");
    const std::string was = "nodes: 2, cores: 2";
    text.replace(text.find(was), was.size(), nodes + ", contention: false");
    text.replace(text.find("overhead: 0"), std::string("overhead: 0").size(), fmt::format("overhead: {}", o));
    const std::string intra = fmt::format("bandwidth: {}}}", Bi);  // the end of the intra map
    text.replace(text.find(intra), intra.size(), fmt::format("bandwidth: {}, overhead: {}}}", Bi, oi));
    const Scenario s = parse_scenario(text, dir / "overhead.yaml");
    return run_point(s, load_trace(s).trace).identity;
  };
  CHECK(runtime("nodes: 1, cores: 4") == Approx(halo_by_hand(oi, Li, Bi)).margin(1e-8));  // every call inside the node
  CHECK(runtime("nodes: 4, cores: 1") == Approx(halo_by_hand(o, L, B)).margin(1e-8));     // every call between nodes
}

TEST_CASE("placement: networks inside and between nodes from calibration files, as derived by hand",
          "[scenario][placement]") {
  // Two `wisp calibrate`-like crossbars (contention-free, every call costing its overhead): between
  // nodes L, B and o; inside a node Li, Bi and oi. The calibration between nodes becomes a machine of
  // `nodes` x `cores`, the other the network inside each node: a call whose messages stay on its
  // node pays oi and its messages take Li + M/Bi, any other o and L + M/B (the halo's step as in the
  // test above).
  TempDir dir;
  const auto write = [&](const std::string& name, double latency, double bandwidth, double overhead) {
    Platform p = contention_free_crossbar(2, latency, bandwidth, overhead, 65536);
    std::ofstream(dir / name) << platform_xml(p);
    return (dir / name).string();
  };
  const std::string between = write("between.xml", L, B, o), inside = write("inside.xml", Li, Bi, oi);
  const auto runtime = [&](const std::string& machine, const std::string& placement = "traced") {
    std::string text = scenario_text("traced");
    const auto from = text.find("platform: "), to = text.find('\n', from);
    text.replace(from, to - from,
                 fmt::format("platform: {{file: \"{}\", {}, intra: {{file: \"{}\"}}}}", between, machine, inside));
    const std::string replay = "costs: model,";
    text.replace(text.find(replay), replay.size(), replay + " placement: " + placement + ",");
    const Scenario s = parse_scenario(text, dir / "calibrated.yaml");
    return run_point(s, load_trace(s).trace).identity;
  };
  CHECK(runtime("nodes: 1, cores: 4") == Approx(halo_by_hand(oi, Li, Bi)).margin(1e-8));  // every call inside the node
  CHECK(runtime("nodes: 4, cores: 1") == Approx(halo_by_hand(o, L, B)).margin(1e-8));     // every call between nodes
  // The file's 2 hosts of 4 cores each, the identity placed block: every rank on node-0.
  CHECK(runtime("cores: 4", "block") == Approx(halo_by_hand(oi, Li, Bi)).margin(1e-8));
  // The writer's form (sweep points and points over MPI re-read it) parses back to the same machine.
  const Scenario read = parse_scenario(
      fmt::format("wisp: 1\ntrace: t.otf2\nplatform: {{file: \"{}\", nodes: 3, cores: 2, intra: {{file: \"{}\"}}}}\n"
                  "replay: {{placement: block}}\n",
                  between, inside),
      dir / "read.yaml");
  const Scenario again = parse_scenario(scenario_yaml(read), dir / "again.yaml");
  CHECK(again.platform.kind == PlatformSpec::Kind::File);
  CHECK(again.platform.file == between);
  CHECK(again.platform.hosts == 3);
  CHECK(again.platform.cores == 2);
  CHECK(again.platform.intra_file == inside);
  CHECK(again.replay.placement == Placement::Block);
  // A file that is not a calibration's crossbar describes a machine: neither nodes nor a network inside.
  const std::string torus = std::string(WISP_SOURCE_DIR) + "/platforms/torus.xml";
  const Scenario s = parse_scenario(
      fmt::format("wisp: 1\ntrace: t.otf2\nplatform: {{file: \"{}\", cores: 2, intra: {{file: \"{}\"}}}}\n", torus,
                  inside),
      dir / "torus.yaml");
  CHECK_THROWS_WITH(
      resolve_platform(s.platform, load_trace(parse_scenario(scenario_text("traced"), dir / "x.yaml")).trace),
      Catch::Contains("nodes and cores take a platform file written by wisp calibrate"));
}

TEST_CASE("placement: a call moving between the node's network and the machine's moves its typical part, by hand",
          "[scenario][placement]") {
  // One message of 8000 B from rank 0 to rank 1, its receive with a residual of 30 us. Between nodes a
  // typical message takes te beyond the fastest, inside a node tei (MpiCosts::typical_excess): placed
  // on one node and moved to two, the receive's residual loses tei and gains te; the send, which
  // receives nothing, keeps its own.
  constexpr double te = 6e-6, tei = 1e-6;
  test::HandTrace h(2);
  for (Rank r : {0u, 1u}) h.init(r, 0, 1);
  h.send(0, 2, 2.1, 1, 0, 8000);
  h.recv(1, 1.5, 2.2, 0, 0, 8000);
  for (Rank r : {0u, 1u}) h.finalize(r, 3, 4);
  const Trace t = h.finish();
  Platform machine = contention_free_crossbar(2, 10e-6, 1e9, 1e-6, 65536);
  machine.cores = 2;
  machine.mpi.typical_excess = MpiCosts::TypicalExcess{te, 0};
  Platform node = contention_free_crossbar(2, 1e-6, 1e10, 0.5e-6, 65536);
  node.mpi.typical_excess = MpiCosts::TypicalExcess{tei, 0};
  machine.intra = Platform::NodeNetwork{1e-6, 1e10};  // what with_intra_calibration makes of its file
  machine.intra_calibration = std::make_shared<const Platform>(node);
  CallResiduals r;
  r.by_rank = {{0, 5e-6, 0}, {0, 30e-6, 0}};
  const PlacedPlatform one_node(machine, {0, 0}), two_nodes(machine, {0, 1});
  const auto moved = residuals_with_typical_network(t, r, one_node, two_nodes);
  REQUIRE(moved);
  CHECK(moved->by_rank[1][1] == Approx(30e-6 - tei + te).margin(1e-15));
  CHECK(moved->by_rank[0][1] == Approx(5e-6).margin(1e-15));
  CHECK(residuals_with_typical_network(t, r, two_nodes, one_node)->by_rank[1][1] ==
        Approx(30e-6 - te + tei).margin(1e-15));
  CHECK(typical_excess_seconds(t, r, one_node) == Approx(tei).margin(1e-15));
  CHECK(typical_excess_seconds(t, r, two_nodes) == Approx(te).margin(1e-15));
  // planned_hosts: where a replay puts the ranks, known for a generated crossbar without SimGrid.
  ReplayOptions options;
  options.placement = Placement::Cyclic;
  CHECK(planned_hosts(t, machine, options) == std::vector<std::size_t>{0, 1});
  options.placement = Placement::Block;
  CHECK(planned_hosts(t, machine, options) == std::vector<std::size_t>{0, 0});
  options.hosts = {"node-1", "node-0"};
  CHECK(planned_hosts(t, machine, options) == std::vector<std::size_t>{1, 0});
  options.hosts = {"compute-7"};
  CHECK(planned_hosts(t, machine, options).empty());
}

TEST_CASE("placement: inside a node its calibration's protocol and size factors, as derived by hand",
          "[scenario][placement]") {
  // One message of 4 KiB from rank 0 (MPI_Send at 1 s) to rank 1 (MPI_Recv at 2 s, after work).
  // Between nodes (L, B, o; eager up to 64 KiB) it goes eagerly: the send returns after o and the
  // receive, its message long there, after o. Inside a node the calibration sends only up to 1 KiB
  // eagerly and simulates the receiver's 4 KiB class as twice its bytes: the send waits for the
  // receive posted at 2 s + oi, and both end Li + 2 x 4096 / Bi later.
  constexpr double Lb = 10e-6, Bb = 1e9, ob = 2e-6, Ln = 1e-6, Bn = 1e10, on = 0.5e-6;
  test::HandTrace h(2);
  for (Rank r : {0u, 1u}) h.init(r, 0, 1);
  h.send(0, 1, 1.1, 1, 0, 4096);
  h.work(1, 1, 2, "work");
  h.recv(1, 2, 2.1, 0, 0, 4096);
  for (Rank r : {0u, 1u}) h.finalize(r, 3, 3.1);
  const Trace t = h.finish();
  Platform machine = contention_free_crossbar(2, Lb, Bb, ob, 65536);
  machine.cores = 2;
  Platform node = contention_free_crossbar(2, Ln, Bn, on, 1024);
  node.size_factors["node-1"][13] = 2.0;  // rank 1's 4 KiB class (wisp:size-factors:node-1)
  machine.intra = Platform::NodeNetwork{Ln, Bn};
  machine.intra_calibration = std::make_shared<const Platform>(node);
  const auto leaves = [&](Placement placement) {
    ReplayOptions options;
    options.placement = placement;
    const ReplayResult r = replay(t, machine, options);
    std::vector<double> out;  // MPI_Send's leave, MPI_Recv's leave
    for (Rank k : {0u, 1u}) out.push_back(r.trace.ranks[k].events[r.trace.ranks[k].mpi_calls[1].leave].time);
    return out;
  };
  const std::vector<double> between = leaves(Placement::Cyclic), inside = leaves(Placement::Block);
  // To SimGrid's precision (1 ns); without the node's protocol or size factor they are off by 0.4 us or more.
  CHECK(between[0] == Approx(1 + ob).epsilon(0).margin(1e-9));
  CHECK(between[1] == Approx(2 + ob).epsilon(0).margin(1e-9));
  CHECK(inside[0] == Approx(2 + on + Ln + 2 * 4096 / Bn).epsilon(0).margin(1e-9));
  CHECK(inside[1] == Approx(2 + on + Ln + 2 * 4096 / Bn).epsilon(0).margin(1e-9));
}
