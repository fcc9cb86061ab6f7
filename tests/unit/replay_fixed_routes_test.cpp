// Messages on fixed routes (src/replay/fixed_transfers.hpp): on a platform no transfer can slow
// down, eager messages and analytic rounds travel without a SimGrid activity, and every event
// keeps the time it has when every message is an activity (ReplayOptions::fixed_routes = false).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;

namespace {

ReplayResult replay_with(const Trace& t, const Platform& p, ReplayOptions o, bool fixed) {
  o.fixed_routes = fixed;
  return replay(t, p, o);
}

// Both replays of `t`: the same time for every event, to SimGrid's timing precision (1 ns: with
// activities, each sleep before a message rounds its start; without, the send time is exact).
void check_same_times(const Trace& t, const Platform& p, const ReplayOptions& o, const char* name) {
  INFO(name);
  const ReplayResult with = replay_with(t, p, o, true), without = replay_with(t, p, o, false);
  CHECK(with.statistics.without_activity > 0);
  CHECK(without.statistics.without_activity == 0);
  CHECK(with.statistics.messages == without.statistics.messages);
  REQUIRE(with.trace.rank_count() == without.trace.rank_count());
  double largest = 0;
  for (Rank r = 0; r < t.rank_count(); ++r) {
    const auto &a = with.trace.ranks[r].events, &b = without.trace.ranks[r].events;
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i].time - b[i].time));
  }
  INFO("largest difference " << largest * 1e9 << " ns");
  CHECK(largest <= 1e-8);
  CHECK(with.runtime == Approx(without.runtime).epsilon(0).margin(1e-8));
}

Platform free_crossbar(const gen::ModelParams& m, std::uint32_t ranks) {
  return contention_free_crossbar(ranks, m.latency, m.bandwidth, m.overhead, m.eager_limit);
}

}  // namespace

TEST_CASE("fixed routes: the halo keeps every event's time, eager and rendezvous", "[replay][fixed]") {
  gen::HaloOptions o;
  o.dims = {3, 2, 2};
  o.steps = 6;
  o.overload_ranks = {5};
  o.overload = 0.3;
  o.launch_jitter = 1e-3;
  const Trace eager = gen::generate_halo(o);
  ReplayOptions analytic;
  analytic.algorithms.set_all(CollectiveAlgorithm::Analytic);
  check_same_times(eager, free_crossbar(o.model, 12), ReplayOptions{}, "halo eager, collectives as messages");
  check_same_times(eager, free_crossbar(o.model, 12), analytic, "halo eager, analytic collectives");
  ReplayOptions ring;
  ring.algorithms.set(CollectiveFamily::Allreduce, CollectiveAlgorithm::Ring);
  check_same_times(eager, free_crossbar(o.model, 12), ring, "halo eager, ring allreduce");
  ReplayOptions rendezvous;
  rendezvous.eager_threshold = 1000;  // the halo's faces go by rendezvous, collectives' rounds eagerly
  check_same_times(eager, free_crossbar(o.model, 12), rendezvous, "halo rendezvous");
  ReplayOptions anchored;
  anchored.anchor = true;
  check_same_times(eager, free_crossbar(o.model, 12), anchored, "halo, trace-anchored costs");
}

TEST_CASE("fixed routes: barriers' empty messages, a wavefront and ranks sharing hosts", "[replay][fixed]") {
  gen::ImbalanceOptions b;
  b.ranks = 8;
  b.iterations = 10;
  b.mode = "dynamic";
  b.launch_jitter = 2e-3;
  check_same_times(gen::generate_imbalance(b), free_crossbar(b.model, 8), ReplayOptions{}, "barriers");
  gen::WavefrontOptions w;
  w.px = 3;
  w.py = 2;
  w.iterations = 3;
  w.bytes = 4096;
  const Trace wave = gen::generate_wavefront(w);
  check_same_times(wave, free_crossbar(w.model, 6), ReplayOptions{}, "wavefront");
  Platform shared_hosts = free_crossbar(w.model, 3);  // two ranks per host: routes through the loopback
  shared_hosts.cores = 2;
  check_same_times(wave, shared_hosts, ReplayOptions{}, "wavefront, two ranks per host");
  ReplayOptions zero;
  zero.zero_communication = true;
  check_same_times(wave, free_crossbar(w.model, 6), zero, "wavefront, zero communication");
}

TEST_CASE("a platform file with a profile varies in time", "[replay][fixed][platform]") {
  wisp::test::TempDir dir;
  const auto write = [&](const char* name, const std::string& link) {
    std::ofstream(dir / name)
        << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
           "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
        << link << "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n</zone></platform>\n";
    return load_platform(dir / name);
  };
  CHECK(write("varying.xml", "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\" bandwidth_file=\"bw.txt\"/>\n")
            .varies_in_time);
  CHECK(!write("constant.xml", "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n").varies_in_time);
}

TEST_CASE("fixed routes: none where transfers can slow each other down", "[replay][fixed]") {
  gen::HaloOptions o;
  o.dims = {2, 2};
  o.steps = 3;
  const Trace t = gen::generate_halo(o);
  Platform shared = free_crossbar(o.model, 4);
  shared.contention = true;  // SHARED links
  CHECK(replay(t, shared, ReplayOptions{}).statistics.without_activity == 0);
  Platform varying = free_crossbar(o.model, 4);  // as load_platform() marks a file with profiles
  varying.varies_in_time = true;
  CHECK(replay(t, varying, ReplayOptions{}).statistics.without_activity == 0);
}
