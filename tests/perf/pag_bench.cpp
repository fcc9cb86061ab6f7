// Benchmark of the activity-graph analysis (not a test): PAG build + CPM throughput in events/s and bytes/event,
// the k = 1000 near-critical-path search and MBM on a PAG of more than a million activities, the
// peak RSS of the search at k = 10, 100, 1000 (each in a forked child whose peak is reset first),
// and the POP timeline and windows. Every timing is the median of --repeat runs.
//
//   pag_bench [--steps N] [--repeat R]     (default: 8x8 halo, 800 steps, about 2.2 million events)
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "process_memory.hpp"
#include "timing.hpp"
#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/analysis/pop_windows.hpp"
#include "wisp/analysis/wait_estimate.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/process/child_process.hpp"

using namespace wisp;

namespace {

using bench::median;
using bench::seconds_of;

double median_of(int repeat, const std::function<void()>& fn) {
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) t.push_back(seconds_of(fn));
  return median(t);
}

using bench::status_kb;
// Runs `fn` in a forked child after resetting its peak RSS; returns the child's peak minus its RSS
// before `fn`, in kB, and the child's wall time.
std::pair<long, double> peak_in_child(const std::function<void()>& fn) {
  const ChildAnswer child = run_in_child("pag_bench", [&](int fd) {
    malloc_trim(0);                                 // return freed heap memory: new use shows in RSS
    std::ofstream("/proc/self/clear_refs") << "5";  // reset VmHWM to the current RSS
    const long before = status_kb("VmRSS:");
    const double t = seconds_of(fn);
    const long peak = status_kb("VmHWM:");
    const long delta = peak - before;
    [[maybe_unused]] auto w1 = write(fd, &delta, sizeof delta);
    [[maybe_unused]] auto w2 = write(fd, &t, sizeof t);
    return 0;
  });
  long delta = -1;
  double t = 0;
  if (child.data.size() >= sizeof delta + sizeof t) {
    std::memcpy(&delta, child.data.data(), sizeof delta);
    std::memcpy(&t, child.data.data() + sizeof delta, sizeof t);
  }
  return {delta, t};
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t steps = 800;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--steps") steps = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--repeat") repeat = std::atoi(argv[i + 1]);
  }
  gen::HaloOptions o;
  o.dims = {8, 8};
  o.steps = steps;
  o.overload_ranks = {9, 42};
  o.overload = 0.2;
  Trace trace;
  const double gen_s = seconds_of([&] { trace = gen::generate_halo(o); });
  const auto events = static_cast<double>(trace.event_count());
  std::printf("trace: halo 8x8, %u steps: %.0f events, %zu messages (generated in %.2f s)\n", steps, events,
              trace.messages.size(), gen_s);

  // 1. PAG build + CPM.
  Pag pag;
  Cpm cpm;
  std::vector<std::uint32_t> critical;
  const double build = median_of(repeat, [&] { pag = build_pag(trace); });
  const double cpm_s = median_of(repeat, [&] { cpm = critical_path_method(pag.graph, critical); });
  const double both = median_of(repeat, [&] {
    Pag p = build_pag(trace);
    std::vector<std::uint32_t> c;
    critical_path_method(p.graph, c);
  });
  const double bytes = static_cast<double>(pag.memory_bytes() + cpm.tails.tail.size() * sizeof(Ticks) +
                                           cpm.tails.marks.size() * 8 + cpm.tails.before.size() * 4);
  std::printf("pag: %u vertices, %zu activities, %.1f bytes/event (graph + CPM tails)\n", pag.graph.vertex_count,
              pag.graph.activities.size() + pag.graph.chain_count(), bytes / events);
  std::printf("pag build: median %.3f s = %.2f M events/s\n", build, events / build / 1e6);
  std::printf("cpm:       median %.3f s = %.2f M events/s\n", cpm_s, events / cpm_s / 1e6);
  std::printf("pag build + cpm: median %.3f s = %.2f M events/s  (repeat %d)\n", both, events / both / 1e6, repeat);

  // 2. k = 1000 near-critical paths (+ MBM over them).
  NearCriticalQuery q;
  q.k = 1000;
  NearCriticalPaths paths;
  const double search = median_of(repeat, [&] { paths = near_critical_paths(pag.graph, cpm, q, critical); });
  std::printf("k = 1000 near-critical paths on %zu activities: median %.3f s (the 1000th within %.4f %%)\n",
              pag.graph.activities.size() + pag.graph.chain_count(), search, paths.last_nc_percent());
  std::vector<MbmRow> mbm;
  const double mbm_s = seconds_of([&] { mbm = maximum_benefit(pag.graph, cpm, paths); });
  std::printf("MBM_k and MBM_all of %zu call paths: %.3f s\n", mbm.size(), mbm_s);

  // 3. Memory of the search alone at k = 10, 100, 1000.
  const auto memory = [](const Pag& g, const Cpm& c, const std::vector<std::uint32_t>& cp) {
    std::printf("RSS before the search (trace + PAG + CPM): %ld kB\n", status_kb("VmRSS:"));
    for (std::size_t k : {10, 100, 1000}) {
      NearCriticalQuery qk;
      qk.k = k;
      const auto [kb, t] = peak_in_child([&] {
        NearCriticalPaths p = near_critical_paths(g.graph, c, qk, cp);
        if (p.paths.size() != k) std::_Exit(2);
      });
      std::printf("k = %4zu: peak RSS increase during the search %ld kB = %.2f bytes/activity, %.3f s\n", k, kb,
                  1024.0 * kb / (g.graph.activities.size() + g.graph.chain_count()), t);
    }
  };
  memory(pag, cpm, critical);

  // 2b and 3b. A PAG whose paths differ in length: dynamic imbalance, a random rank late per barrier.
  gen::ImbalanceOptions io;
  io.ranks = 64;
  io.iterations = std::max<std::uint32_t>(1, steps * 7 / 2);
  io.mode = "dynamic";
  io.work = 0.001;
  io.launch_jitter = 0.001;  // one rank starts last: no P x P ties through MPI_Init
  const Trace imbalance = gen::generate_imbalance(io);
  const Pag ipag = build_pag(imbalance);
  std::vector<std::uint32_t> icritical;
  const Cpm icpm = critical_path_method(ipag.graph, icritical);
  const double isearch = median_of(repeat, [&] { paths = near_critical_paths(ipag.graph, icpm, q, icritical); });
  std::printf("dynamic imbalance 64 ranks x %u iterations: %llu events, %zu activities\n", io.iterations,
              static_cast<unsigned long long>(imbalance.event_count()),
              ipag.graph.activities.size() + ipag.graph.chain_count());
  std::printf("k = 1000 near-critical paths: median %.3f s (the 1000th within %.4f %%)\n", isearch,
              paths.last_nc_percent());
  memory(ipag, icpm, icritical);
  NearCriticalQuery nc;  // mode 2: every path within 0.05 % of d_cp (capped at 20000)
  nc.nc_percent = 0.05;
  nc.limit = 20000;
  const double nc_s = seconds_of([&] { paths = near_critical_paths(ipag.graph, icpm, nc, icritical); });
  std::printf("nc = 0.05 %%: %zu paths%s in %.3f s, shortest %.6f s of d_cp %.6f s\n", paths.paths.size(),
              paths.more_available ? " (limit reached)" : "", nc_s, ipag.seconds(paths.paths.back().duration),
              ipag.seconds(icpm.length));

  // 4. Wait estimate and POP (timeline + 1000 windows).
  const double wait_s = median_of(repeat, [&] { estimate_waits(trace); });
  std::printf("minimum-based wait estimate: median %.3f s = %.2f M events/s\n", wait_s, events / wait_s / 1e6);
  PopTimeline timeline;
  const double tl_s = median_of(repeat, [&] { timeline = pop_timeline(trace); });
  std::printf("POP timeline (ideal-network replay): median %.3f s = %.2f M events/s\n", tl_s, events / tl_s / 1e6);
  const double length = (timeline.end - timeline.start) / 1000;
  const double win_s = median_of(repeat, [&] { pop_windows(timeline, WindowOptions{length, 3}); });
  std::printf("POP 1000 adaptive windows: median %.3f s\n", win_s);
  return 0;
}
