// Benchmark of everything `wisp analyze` computes (wisp::analyze_trace: the wait-path analysis, the
// minimum-based wait estimate, the POP factors with adaptive windows, the PAG with CPM,
// k = 10 near-critical paths and MBM) on halo traces built in memory: median wall time of the
// repetitions per step and in total, events/s, and the peak RSS on top of the trace in bytes per
// event (each repetition in a forked child whose peak is reset first, so that repetitions do not
// hide each other's peaks). A quarter-size and a full-size trace show whether time is linear.
//   analyze_all_bench [reps] [steps]     (default 5 repetitions; 8x8 halo, 3720 steps = 10 M events)
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "process_memory.hpp"
#include "timing.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/driver/analysis_runner.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/process/child_process.hpp"

using namespace wisp;

namespace {

using bench::median;

using bench::reset_peak;
using bench::status_kb;

struct Sample {
  double total = 0;
  long peak_kb = 0;  // peak RSS minus RSS before the analysis
  double steps[16] = {};
  int step_count = 0;
  double critical_path = 0;
};

// One analysis in a forked child; the child writes its Sample through a pipe.
Sample sample_in_child(const Trace& trace, std::vector<std::string>& names) {
  const ChildAnswer child = run_in_child("analyze_all_bench", [&](int fd) {
    malloc_trim(0);
    const long before = status_kb("VmRSS:");
    reset_peak();
    driver::AnalysisRunner runner;
    const TraceAnalysis a = analyze_trace(trace, {}, runner);
    Sample s;
    s.peak_kb = status_kb("VmHWM:") - before;
    auto timings = runner.timings();  // in the order they ended, which threads may change: by name
    std::sort(timings.begin(), timings.end());
    for (const auto& [name, seconds] : timings) {
      s.steps[s.step_count++] = seconds;
      s.total += seconds;
    }
    s.critical_path = a.pag->pag.seconds(a.pag->cpm.length);
    if (write(fd, &s, sizeof s) != static_cast<ssize_t>(sizeof s)) return 1;
    std::string joined;
    for (const auto& [name, seconds] : timings) joined += name + "\n";
    if (write(fd, joined.data(), joined.size()) < 0) return 1;
    return 0;
  });
  Sample s;
  if (child.data.size() < sizeof s) std::exit(1);
  std::memcpy(&s, child.data.data(), sizeof s);
  const std::string joined = child.data.substr(sizeof s);
  names.clear();
  for (std::size_t at = 0, next; (next = joined.find('\n', at)) != std::string::npos; at = next + 1)
    names.push_back(joined.substr(at, next - at));
  return s;
}

void run(std::uint32_t steps, int reps) {
  gen::HaloOptions o;
  o.dims = {8, 8};
  o.steps = steps;
  o.overload_ranks = {5};
  o.overload = 0.3;
  const Trace trace = gen::generate_halo(o);
  const double events = static_cast<double>(trace.event_count());
  std::vector<std::string> names;
  std::vector<Sample> samples;
  for (int i = 0; i < reps; ++i) samples.push_back(sample_in_child(trace, names));
  std::vector<double> totals, peaks;
  for (const Sample& s : samples) {
    totals.push_back(s.total);
    peaks.push_back(static_cast<double>(s.peak_kb));
  }
  const double t = median(totals);
  std::printf("halo 8x8, %u steps: %.0f events, model %.1f B/event, critical path %.3f s\n", steps, events,
              static_cast<double>(memory_footprint(trace)) / events, samples.front().critical_path);
  std::printf("  analyze_trace: median %.3f s = %.2f Mevents/s; peak RSS on top of the trace %.0f MB = %.0f B/event\n",
              t, events / t / 1e6, median(peaks) / 1024, median(peaks) * 1024 / events);
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<double> v;
    for (const Sample& s : samples) v.push_back(s.steps[k]);
    const double m = median(v);
    std::printf("    %-62s %7.3f s  %7.2f Mevents/s\n", names[k].c_str(), m, events / m / 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::uint32_t steps = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 3720;
  run(steps / 4, reps);
  run(steps, reps);
  return 0;
}
