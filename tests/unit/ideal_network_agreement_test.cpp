// The two ideal networks of the POP factors agree: the clock replay of the analysis layer
// (pop.hpp's timers, what `wisp analyze` uses by default) and a SimGrid replay on the ideal
// platform (replay/ideal_platform.hpp, `--ideal-network simgrid`), on traces of every generator.
//
// Tolerance: both replay the same computation durations along the same dependencies with zero
// communication time. The clock replay adds integer clock ticks (exact). SimGrid computes in
// double seconds and ends an action once it is within its timing precision (surf/precision,
// 1e-9 s in SimGrid 3.32), so each of the at most E actions along a chain (E: events of the rank
// with the most events) may end up to 1 ns early: |difference| <= E · 1 ns. (Measured: 0.)
//
// Launch times: SimGrid starts each rank at its first event; the clock replay starts every clock at
// 0. The generators enter MPI_Init at launch and the ideal MPI_Init costs nothing, so it releases
// every rank at the latest launch in SimGrid and at clock 0 in the clock replay:
// T_ideal(SimGrid) = T_ideal(clock) + (latest - earliest launch).
//
// Eager limit: the clock replay makes a send above the eager limit wait for its receive only if
// the trace shows the receive posted before the send completed; a send that completed before its
// receive was posted was, in the measured run, eager whatever its size. SimGrid applies the
// protocol by size alone. So they agree as long as the eager limit does not contradict the trace
// (e.g. is not below the limit of the MPI library that recorded it), and with a smaller one SimGrid
// can only be slower.
#include <catch2/catch.hpp>

#include <algorithm>

#include "hand_trace.hpp"
#include "helpers.hpp"
#include "wisp/analysis/pop_analysis.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/ideal_platform.hpp"

using namespace wisp;

namespace {

constexpr double kNs = 1e-9;

double tolerance(const Trace& t) {
  std::size_t most = 0;
  for (const RankTrace& rt : t.ranks) most = std::max(most, rt.events.size());
  return static_cast<double>(most) * kNs;
}

void check_agreement(const Trace& t, std::uint64_t eager_limit = 65536) {
  PopAnalysisOptions clock_options;
  clock_options.pop.eager_limit = eager_limit;
  const PopAnalysis clock = analyze_pop(t, clock_options);
  const SimulatedIdealNetwork simgrid = simulate_ideal_network(t, eager_limit);
  const double tol = tolerance(t);
  INFO("clock replay " << clock.replay_ideal << " s, SimGrid " << simgrid.runtime << " s, launch skew "
                       << simgrid.launch_skew << " s, tolerance " << tol << " s");
  CHECK(simgrid.statistics.events == t.event_count());
  CHECK(simgrid.runtime == Approx(clock.replay_ideal + simgrid.launch_skew).margin(tol));

  // The POP factors with SimGrid's T_ideal are the clock replay's (without launch skew).
  if (simgrid.launch_skew == 0) {
    PopAnalysisOptions external = clock_options;
    external.pop.ideal_runtime = simgrid.runtime;
    const PopAnalysis s = analyze_pop(t, external);
    CHECK(s.ideal_source == "external");
    CHECK(s.whole.serialisation == Approx(clock.whole.serialisation).margin(tol / clock.replay_ideal));
    CHECK(s.whole.transfer == Approx(clock.whole.transfer).margin(tol / clock.whole.elapsed));
  }
}

}  // namespace

TEST_CASE("ideal network: SimGrid replay on the ideal platform = clock replay, every generator",
          "[pop][ideal][replay]") {
  SECTION("imbalance, all modes") {
    for (const char* mode : {"balanced", "static", "dynamic", "mixed"}) {
      INFO(mode);
      gen::ImbalanceOptions o;
      o.ranks = 6;
      o.iterations = 10;
      o.mode = mode;
      check_agreement(gen::generate_imbalance(o));
    }
  }
  SECTION("wavefront 3x2 with slow border ranks") { check_agreement(test::small_wavefront_with_slow_border()); }
  SECTION("mpmd, mesh too slow") { check_agreement(test::small_mpmd_with_slow_mesh()); }
  SECTION("halo 4x2, overloaded rank; eager and (with a 1 KiB eager limit) rendezvous messages") {
    gen::HaloOptions o;
    o.dims = {4, 2};
    o.steps = 6;
    o.overload_ranks = {5};
    o.overload = 0.5;
    const Trace t = gen::generate_halo(o);
    check_agreement(t);
    check_agreement(t, 1024);
  }
  SECTION("wavefront with an eager limit below the trace's: SimGrid adds rendezvous waits the trace does not show") {
    gen::WavefrontOptions o;  // 4096-byte messages, recorded eagerly (model eager limit 64 KiB)
    o.px = 3;
    o.py = 2;
    o.iterations = 3;
    o.extra_ranks = {0, 3};
    o.extra = 0.5;
    const Trace t = gen::generate_wavefront(o);
    PopAnalysisOptions clock_options;
    clock_options.pop.eager_limit = 1024;
    const double clock = analyze_pop(t, clock_options).replay_ideal;
    CHECK(clock == Approx(analyze_pop(t).replay_ideal).margin(kNs));  // the trace decides, not the limit
    CHECK(simulate_ideal_network(t, 1024).runtime > clock + 1e-3);
  }
  SECTION("phases (rendezvous transfers in phase 4)") {
    gen::PhasesOptions o;
    o.ranks = 6;
    o.iterations = 4;
    check_agreement(gen::generate_phases(o));
  }
  SECTION("halo with launch jitter: SimGrid keeps the launch skew") {
    gen::HaloOptions o;
    o.dims = {3, 2};
    o.steps = 4;
    o.launch_jitter = 0.002;
    const Trace t = gen::generate_halo(o);
    const SimulatedIdealNetwork s = simulate_ideal_network(t);
    double first = 1, last = 0;
    for (const RankTrace& rt : t.ranks) {
      first = std::min(first, rt.events.front().time);
      last = std::max(last, rt.events.front().time);
    }
    CHECK(s.launch_skew == Approx(last - first).margin(kNs));
    CHECK(s.launch_skew > 0.0005);
    check_agreement(t);
  }
}

TEST_CASE("ideal network on the Score-P ping-pong trace: SimGrid within the launch skew and local MPI calls",
          "[pop][ideal][replay]") {
  const auto dir = test::real_trace("scorep-ping-pong");
  const Trace t = read_otf2(dir);
  const double clock = analyze_pop(t).replay_ideal;
  const SimulatedIdealNetwork simgrid = simulate_ideal_network(t);
  // Against the clock replay, the SimGrid replay adds non-negative time only: the launch offsets
  // (at most the launch skew on any path) and MPI calls without communication (MPI_Comm_size,
  // MPI_Comm_rank, ...), which keep their traced duration in a replay but count nothing in the
  // clock replay (at most their sum over all ranks on any path).
  double local_calls = 0;
  for (const RankTrace& rt : t.ranks)
    for (const CallSpan& c : rt.mpi_calls) {
      bool communicates = false;
      for (EventIndex i = c.enter + 1; i < c.leave; ++i)
        communicates |= rt.events[i].kind != EventKind::Enter && rt.events[i].kind != EventKind::Leave;
      if (!communicates) local_calls += rt.events[c.leave].time - rt.events[c.enter].time;
    }
  INFO("clock " << clock << " s, SimGrid " << simgrid.runtime << " s, launch skew " << simgrid.launch_skew
                << " s, local MPI calls " << local_calls << " s");
  CHECK(simgrid.launch_skew > 0);
  CHECK(simgrid.runtime >= clock - tolerance(t));
  CHECK(simgrid.runtime <= clock + simgrid.launch_skew + local_calls + tolerance(t));
}

TEST_CASE("ideal network: the bundled platforms/ideal.xml with the ideal replay options gives the same T_ideal",
          "[pop][ideal][replay]") {
  // ideal.xml: 1024 hosts, zero latency, 1e18 bytes/s, no MPI overhead. The replay options
  // (zero-byte messages, free MPI_Init, analytic collectives) make any such platform ideal.
  const Platform xml = load_platform(std::string(WISP_SOURCE_DIR) + "/platforms/ideal.xml");
  gen::PhasesOptions o;
  o.ranks = 6;
  o.iterations = 3;
  const Trace t = gen::generate_phases(o);
  const ReplayResult r = replay(t, xml, ideal_replay_options());
  const SimulatedIdealNetwork generated = simulate_ideal_network(t);
  CHECK(r.runtime == Approx(generated.runtime).margin(tolerance(t)));  // the trace starts at 0
  CHECK(r.runtime == Approx(analyze_pop(t).replay_ideal).margin(tolerance(t)));
}
