// Accuracy figures of the replay (not a test; run by hand, figures go into tests/perf/README.md):
//  1. every generator replayed on its model's platform with the analytic collectives: largest
//     event deviation and runtime deviation;
//  2. identity replay of a real Score-P trace on its calibrated platform: runtime error and the
//     error of every message's transfer time;
//  3. every real trace of a traces directory in both cost modes (trace-anchored, model only):
//     identity runtime error and wait-state L1 error against the measured trace;
//  4. the what-if oracle: `rebalance work` on whatif/imb8_barrier/{static,dynamic,mixed} against
//     the measured balanced run (span and gain), in both cost modes.
// Usage: replay_accuracy [TRACES_DIR]   (default tests/data)
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "wisp/analysis/call_index.hpp"
#include "wisp/analysis/wait_states.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/scenario/transform.hpp"

#include <chrono>
#include <filesystem>

using namespace wisp;

namespace {

// Start of a message's receive: the enter of its MPI_Recv or the post of its MPI_Irecv.
double receive_posted(const Trace& t, const Message& m) {
  const RankTrace& rt = t.ranks[m.receiver];
  const P2P& p = rt.p2p[m.recv];
  if (p.request_event != kNone) return rt.events[p.request_event].time;
  EventIndex e = p.event;
  while (e > 0 && rt.events[e].kind != EventKind::Enter) --e;
  return rt.events[e].time;
}
double send_started(const Trace& t, const Message& m) {
  const RankTrace& rt = t.ranks[m.sender];
  EventIndex e = rt.p2p[m.send].event;
  while (e > 0 && rt.events[e].kind != EventKind::Enter) --e;
  return rt.events[e].time;
}
// End of a message's receive as the application sees it: the Leave of the call that completed it.
double received(const Trace& t, const Message& m) {
  const RankTrace& rt = t.ranks[m.receiver];
  EventIndex e = t.recv_of(m).event;
  while (e + 1 < rt.events.size() && rt.events[e].kind != EventKind::Leave) ++e;
  return rt.events[e].time;
}

// Transfer time as the receiver sees it: from the later of send start and receive post to the
// end of the call that completed the receive.
double transfer(const Trace& t, const Message& m) {
  return received(t, m) - std::max(send_started(t, m), receive_posted(t, m));
}

void identity(const char* path, bool size_factors) {
  const Trace measured = read_otf2(path);
  Calibration c = calibrate(measured);
  if (!size_factors) c.platform.size_factors.clear();
  const ReplayResult r = replay(measured, c.platform);
  const double T = measured.end_time();
  std::printf("identity replay of %s on its calibrated platform%s\n", path,
              size_factors ? "" : " WITHOUT the size factors (linear model per receiver only)");
  std::printf("  runtime measured %.6f s, simulated %.6f s, error %+.3f %%\n", T, r.runtime, (r.runtime - T) / T * 100);
  double init_leave = 0;
  for (Rank k = 0; k < measured.rank_count(); ++k)
    for (const CallSpan& s : measured.ranks[k].mpi_calls)
      if (measured.defs.region_of(measured.ranks[k].events[s.enter].ref).mpi == MpiFunction::Init)
        init_leave = std::max(init_leave, measured.ranks[k].events[s.leave].time);
  std::printf("  after MPI_Init: measured %.6f s, simulated %.6f s, error %+.3f %%\n", T - init_leave,
              r.runtime - init_leave, (r.runtime - T) / (T - init_leave) * 100);
  std::vector<double> errors;
  std::printf("  %-10s %8s %12s %12s %9s %14s\n", "message", "bytes", "measured", "simulated", "error",
              "recv time err");
  for (std::size_t i = 0; i < measured.messages.size(); ++i) {
    const Message& m = measured.messages[i];
    const Message& s = r.trace.messages[i];
    const double a = transfer(measured, m), b = transfer(r.trace, s);
    errors.push_back(std::abs(b - a) / a);
    std::printf("  %u->%u #%-4zu %8llu %9.3f us %9.3f us %+8.2f%% %+11.3f us\n", m.sender, m.receiver, i,
                static_cast<unsigned long long>(measured.send_of(m).bytes), a * 1e6, b * 1e6, (b - a) / a * 100,
                (received(r.trace, s) - received(measured, m)) * 1e6);
  }
  std::sort(errors.begin(), errors.end());
  if (!errors.empty())
    std::printf("  per-message transfer error: median %.2f %%, max %.2f %%, mean %.2f %%\n",
                errors[errors.size() / 2] * 100, errors.back() * 100,
                std::accumulate(errors.begin(), errors.end(), 0.0) / errors.size() * 100);
}

struct Deviation {
  double max_event = 0;
  std::uint64_t events = 0;
};

Deviation deviation(const Trace& a, const Trace& b) {
  Deviation d;
  for (Rank r = 0; r < a.rank_count(); ++r)
    for (std::size_t i = 0; i < a.ranks[r].events.size(); ++i) {
      d.max_event = std::max(d.max_event, std::abs(a.ranks[r].events[i].time - b.ranks[r].events[i].time));
      ++d.events;
    }
  return d;
}

void model_case(const char* name, const Trace& t, const gen::ModelParams& m) {
  ReplayOptions o;
  o.algorithms.set_all(CollectiveAlgorithm::Analytic);
  const ReplayResult r =
      replay(t, contention_free_crossbar(t.rank_count(), m.latency, m.bandwidth, m.overhead, m.eager_limit), o);
  const Deviation d = deviation(t, r.trace);
  std::printf("  %-34s %5u ranks %9llu events  runtime %.9f s vs %.9f s (%+.2e %%)  max event deviation %.1f ns\n",
              name, t.rank_count(), static_cast<unsigned long long>(d.events), t.end_time(), r.runtime,
              (r.runtime - t.end_time()) / t.end_time() * 100, d.max_event * 1e9);
}

// Every generator with its default options (and variants), replayed on the model's platform.
void model() {
  std::printf("generators replayed on a contention-free crossbar with their model parameters, analytic collectives\n");
  gen::ImbalanceOptions im;
  for (const char* mode : {"balanced", "static", "dynamic", "mixed"}) {
    im.mode = mode;
    im.launch_jitter = 1e-3;
    model_case(fmt::format("imbalance --mode {}", mode).c_str(), gen::generate_imbalance(im), im.model);
  }
  gen::WavefrontOptions wf;
  wf.extra_ranks = {5, 6};
  wf.extra = 0.5;
  model_case("wavefront (4 KiB, eager)", gen::generate_wavefront(wf), wf.model);
  wf.bytes = 1 << 20;
  model_case("wavefront (1 MiB, rendezvous)", gen::generate_wavefront(wf), wf.model);
  gen::MpmdOptions mp;
  mp.launch_jitter = 1e-3;
  model_case("mpmd", gen::generate_mpmd(mp), mp.model);
  gen::HaloOptions ha;
  ha.overload_ranks = {3};
  ha.overload = 0.2;
  model_case("halo 4x4", gen::generate_halo(ha), ha.model);
  ha.dims = {4, 4, 4};
  ha.bytes = 1 << 20;
  model_case("halo 4x4x4 (1 MiB, rendezvous)", gen::generate_halo(ha), ha.model);
  gen::PhasesOptions ph;
  model_case("phases (32 MiB in phase 4)", gen::generate_phases(ph), ph.model);
}

// The identity replay of a measured trace in one cost mode, on its calibrated platform.
struct Identity {
  ReplayResult replay;
  Platform platform;
  CollectiveAlgorithms algorithms;
  double seconds = 0;  // wall time of calibration + replay
};

Identity identity_replay(const Trace& measured, bool anchored) {
  const auto start = std::chrono::steady_clock::now();
  Identity id;
  Calibration c = calibrate(measured);
  if (!anchored) calibrate_call_costs(measured, c);
  id.platform = c.platform;
  ReplayOptions o;
  o.anchor = anchored;
  o.progress_interval = 0;
  o.algorithms = c.algorithms;
  id.algorithms = c.algorithms;
  id.replay = replay(measured, id.platform, o);
  id.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return id;
}

const WaitKind kCompared[] = {WaitKind::LateSender, WaitKind::LateReceiver, WaitKind::WaitNxN, WaitKind::WaitBarrier};

// Largest L1 error over the four wait-state kinds (those with waiting in either trace).
double wait_error(const WaitStates& measured, const Trace& simulated) {
  const WaitStates s = find_wait_states(simulated, index_mpi_calls(simulated));
  double worst = 0;
  for (WaitKind k : kCompared) worst = std::max(worst, wait_state_error(measured, s, k));
  return worst;
}

void real_traces(const std::filesystem::path& shared) {
  std::printf("\nidentity replay of every real trace on its calibrated platform (error = simulated vs measured)\n");
  std::printf("%-44s %6s %9s %11s | %9s %9s %7s | %9s %9s %7s\n", "trace", "ranks", "events", "measured", "anchored",
              "waits L1", "time", "model", "waits L1", "time");
  const char* traces[] = {"apps/sweep3d_50c_6r",
                          "apps/cloverleaf_bm_short_4r",
                          "apps/minife_100c_imb20_4r",
                          "apps/cloverleaf_2r",
                          "whatif/imb8_barrier/balanced",
                          "whatif/imb8_barrier/static",
                          "whatif/imb8_barrier/dynamic",
                          "whatif/imb8_barrier/mixed",
                          "other-writers/sstmacro-otf2_test_traces",
                          "other-writers/casita-10_scorep_mpi_tags",
                          "other-writers/casita-2_jacobi_blame_cpu_015",
                          "other-writers/casita-2_cuda_simple",
                          "scorep-ping-pong",
                          "scorep-ping-pong-papi"};
  for (const char* name : traces) {
    const auto dir = shared / name;
    if (!std::filesystem::exists(dir)) {
      std::printf("%-44s absent\n", name);
      continue;
    }
    Trace measured;
    try {
      measured = read_otf2(dir);
    } catch (const std::exception& e) {
      std::printf("%-44s not read: %.90s\n", name, e.what());
      continue;
    }
    const WaitStates waits = find_wait_states(measured, index_mpi_calls(measured));
    const double T = measured.end_time();
    std::printf("%-44s %6u %9llu %9.6f s", name, measured.rank_count(),
                static_cast<unsigned long long>(measured.event_count()), T);
    for (bool anchored : {true, false}) {
      const Identity id = identity_replay(measured, anchored);
      std::printf(" | %+8.3f%% %8.3f%% %6.2fs", (id.replay.runtime - T) / T * 100,
                  wait_error(waits, id.replay.trace) * 100, id.seconds);
    }
    std::printf("\n");
  }
}

// rebalance work on the imbalanced runs: predicted span vs the measured balanced run.
void whatif(const std::filesystem::path& shared) {
  const auto dir = shared / "whatif/imb8_barrier";
  if (!std::filesystem::exists(dir)) return;
  const double balanced = read_otf2(dir / "balanced").end_time();
  std::printf("\nrebalance work (per instance) on whatif/imb8_barrier: measured balanced span %.6f s\n", balanced);
  std::printf("%-8s %11s | %11s %9s %9s %9s | %11s %9s %9s %9s\n", "mode", "measured", "anchored", "vs bal.", "gain",
              "gain err", "model", "vs bal.", "gain", "gain err");
  Transform t;
  t.kind = TransformKind::Rebalance;
  t.select.region = "work";
  for (const char* mode : {"static", "dynamic", "mixed"}) {
    const Trace measured = read_otf2(dir / mode);
    const Trace transformed = apply_transforms(measured, {t}).trace;
    const double T = measured.end_time(), gain = T - balanced;
    std::printf("%-8s %9.6f s", mode, T);
    for (bool anchored : {true, false}) {
      const Identity id = identity_replay(measured, anchored);
      ReplayOptions o;
      o.residuals = id.replay.residuals;
      o.progress_interval = 0;
      o.algorithms = id.algorithms;
      const double predicted = replay(transformed, id.platform, o).runtime;
      const double simulated_gain = id.replay.runtime - predicted;
      std::printf(" | %9.6f s %+8.2f%% %8.6f %+8.2f%%", predicted, (predicted - balanced) / balanced * 100,
                  simulated_gain, (simulated_gain - gain) / gain * 100);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::filesystem::path shared = argc > 1 ? argv[1] : "tests/data";
    model();
    if (!std::filesystem::exists(shared)) {
      std::printf("%s is absent: the real-trace figures are skipped\n", shared.c_str());
      return 0;
    }
    identity((shared / "scorep-ping-pong").c_str(), true);
    identity((shared / "scorep-ping-pong").c_str(), false);
    real_traces(shared);
    whatif(shared);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
