// Benchmark of The wait-path analysis (profile, wait states, critical path with imbalance indicators, delay
// costs: wisp::analyze) on generated traces built in memory. Reports events/s (median of the
// repetitions) and the memory the analysis needs on top of the trace: the peak RSS during
// analyze_wait_paths() minus the RSS before it (after returning freed heap to the system), and the peak of
// live heap bytes (counted by this program's operator new/delete) minus those before analyze_wait_paths(),
// both against memory_footprint(trace). Linear time shows as the same events/s for a
// quarter-size and a full-size trace.
//   analysis_bench [reps]     (default 5)
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <new>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "process_memory.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;

// Live and peak heap bytes of this process.
static std::atomic<std::size_t> g_live{0}, g_peak{0};

void* operator new(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (!p) throw std::bad_alloc();
  const std::size_t now = g_live += malloc_usable_size(p);
  std::size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
  return p;
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept {
  if (!p) return;
  g_live -= malloc_usable_size(p);
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }

namespace {

using bench::reset_peak;
using bench::status_kb;

void run(const char* name, const Trace& trace, int reps) {
  const double events = static_cast<double>(trace.event_count());
  const double footprint = static_cast<double>(memory_footprint(trace));
  std::vector<double> seconds;
  long overhead_kb = 0;
  std::size_t heap_overhead = 0;
  double wait_states = 0, cp = 0;
  for (int i = 0; i < reps; ++i) {
    malloc_trim(0);
    const long before = status_kb("VmRSS:");
    reset_peak();
    const std::size_t live_before = g_live.load();
    g_peak = live_before;
    const auto t0 = std::chrono::steady_clock::now();
    const WaitPathAnalysis a = analyze_wait_paths(trace);
    const auto t1 = std::chrono::steady_clock::now();
    overhead_kb = std::max(overhead_kb, status_kb("VmHWM:") - before);
    heap_overhead = std::max(heap_overhead, g_peak.load() - live_before);
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    wait_states = static_cast<double>(a.waits.instances.size());
    cp = a.critical_path.length;
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  std::printf(
      "%s: %.0f events, model %.1f MB (%.1f B/event), %.0f wait states, critical path %.3f s\n"
      "  analyze: median %.3f s (min %.3f, max %.3f) = %.2f Mevents/s\n"
      "  memory on top of the trace: peak heap +%.1f MB = %.2f x model (%.1f B/event), "
      "peak RSS +%.1f MB = %.2f x model\n",
      name, events, footprint / 1e6, footprint / events, wait_states, cp, median, seconds.front(), seconds.back(),
      events / median / 1e6, heap_overhead / 1e6, heap_overhead / footprint, heap_overhead / events,
      overhead_kb * 1024.0 / 1e6, overhead_kb * 1024.0 / footprint);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  for (const std::uint32_t steps : {250u, 1000u}) {
    gen::HaloOptions o;
    o.dims = {16, 16};
    o.steps = steps;
    o.overload_ranks = {5, 77, 200};
    o.overload = 0.3;
    o.launch_jitter = 0.002;
    const Trace t = gen::generate_halo(o);
    run(("halo 16x16 " + std::to_string(steps)).c_str(), t, reps);
  }
  for (const std::uint32_t iterations : {390u, 1550u}) {
    gen::WavefrontOptions o;
    o.px = o.py = 8;
    o.iterations = iterations;
    for (Rank r = 0; r < 64; ++r)
      if (r % 8 == 0 || r % 8 == 7) o.extra_ranks.push_back(r);
    o.extra = 0.5;
    const Trace t = gen::generate_wavefront(o);
    run(("wavefront 8x8 " + std::to_string(iterations)).c_str(), t, reps);
  }
  return 0;
}
