// Exactness of the replay on the analytic model: every generator's trace, replayed on a
// contention-free crossbar configured to the generator's model parameters with the analytic
// collective algorithm, comes back with every event within 1 us and the runtime within 0.1 %.
#include <catch2/catch.hpp>

#include <cmath>

#include "wisp/generate/generators.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;

namespace {

Platform model_platform(const gen::ModelParams& m, std::uint32_t ranks) {
  return contention_free_crossbar(ranks, m.latency, m.bandwidth, m.overhead, m.eager_limit);
}

ReplayOptions analytic() {
  ReplayOptions o;
  o.algorithms.set_all(CollectiveAlgorithm::Analytic);
  return o;
}

struct Deviation {
  double max_event = 0;    // largest |simulated - model| over all events [s]
  double runtime_rel = 0;  // |T_sim - T_model| / T_model
};

Deviation compare(const Trace& model, const Trace& simulated) {
  REQUIRE(model.rank_count() == simulated.rank_count());
  Deviation d;
  for (Rank r = 0; r < model.rank_count(); ++r) {
    const auto& a = model.ranks[r].events;
    const auto& b = simulated.ranks[r].events;
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a[i].kind == b[i].kind);
      d.max_event = std::max(d.max_event, std::abs(a[i].time - b[i].time));
    }
  }
  d.runtime_rel = std::abs(model.end_time() - simulated.end_time()) / model.end_time();
  return d;
}

void check_exact(const Trace& model, const gen::ModelParams& params, const char* name) {
  const ReplayResult r = replay(model, model_platform(params, model.rank_count()), analytic());
  const Deviation d = compare(model, r.trace);
  INFO(name << ": max event deviation " << d.max_event * 1e9 << " ns, runtime deviation " << d.runtime_rel * 100
            << " % (model " << model.end_time() << " s, simulated " << r.runtime << " s)");
  CHECK(d.max_event < 1e-6);
  CHECK(d.runtime_rel < 1e-3);
  CHECK(r.trace.anomalies.total() == model.anomalies.total());
  CHECK(r.trace.messages.size() == model.messages.size());
}

}  // namespace

TEST_CASE("replay reproduces the imbalance generator exactly", "[replay][model]") {
  gen::ImbalanceOptions o;
  o.ranks = 8;
  o.iterations = 20;
  o.launch_jitter = 2e-3;
  for (const char* mode : {"static", "dynamic"}) {
    o.mode = mode;
    check_exact(gen::generate_imbalance(o), o.model, mode);
  }
}

TEST_CASE("replay reproduces the wavefront generator exactly", "[replay][model]") {
  gen::WavefrontOptions o;
  o.px = 3;
  o.py = 2;
  o.iterations = 3;
  o.extra_ranks = {4};
  o.extra = 0.5;
  o.bytes = 100000;  // above the eager limit: rendezvous
  check_exact(gen::generate_wavefront(o), o.model, "wavefront rendezvous");
  o.bytes = 4096;
  o.launch_jitter = 1e-3;
  check_exact(gen::generate_wavefront(o), o.model, "wavefront eager");
}

TEST_CASE("replay reproduces the mpmd generator exactly", "[replay][model]") {
  gen::MpmdOptions o;
  o.particle_ranks = 4;
  o.mesh_ranks = 3;
  o.steps = 10;
  o.launch_jitter = 5e-4;
  check_exact(gen::generate_mpmd(o), o.model, "mpmd");
}

TEST_CASE("replay reproduces the halo generator exactly", "[replay][model]") {
  gen::HaloOptions o;
  o.dims = {3, 2, 2};
  o.steps = 10;
  o.overload_ranks = {5};
  o.overload = 0.3;
  o.launch_jitter = 1e-3;
  check_exact(gen::generate_halo(o), o.model, "halo eager");
  o.bytes = 1 << 20;
  o.model.latency = 5e-6;
  o.model.bandwidth = 2e9;
  o.model.overhead = 3e-7;
  check_exact(gen::generate_halo(o), o.model, "halo rendezvous");
}

TEST_CASE("replay reproduces the phases generator exactly", "[replay][model]") {
  gen::PhasesOptions o;
  o.ranks = 6;
  o.iterations = 5;
  o.big_bytes = 4u << 20;
  o.launch_jitter = 1e-3;
  check_exact(gen::generate_phases(o), o.model, "phases");
}
