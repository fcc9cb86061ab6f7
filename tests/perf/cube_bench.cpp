// The cost of the Cube 4 output (not a test; figures go into tests/perf/README.md): on a trace,
// rounds alternating `analyze_trace` (the anchor) and cube_table + write_cube of its result;
// prints both wall times and their ratio per round and the median ratio.
// Usage: cube_bench TRACE [ROUNDS=3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/driver/analysis_runner.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/report/cube_report.hpp"

using namespace wisp;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cube_bench TRACE [ROUNDS]\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::stoi(argv[2]) : 3;
  const Trace trace = read_otf2(argv[1]);
  const auto file = std::filesystem::temp_directory_path() / "wisp-cube-bench.cubex";
  std::vector<double> ratios;
  using clock = std::chrono::steady_clock;
  for (int r = 0; r < rounds; ++r) {
    TraceAnalysisOptions o;
    const auto t0 = clock::now();
    driver::AnalysisRunner runner;  // as wisp analyze runs it
    const TraceAnalysis a = analyze_trace(trace, o, runner);
    const auto t1 = clock::now();
    write_cube(file, trace, cube_table(trace, a), "cube_bench");
    const auto t2 = clock::now();
    const double analyze = std::chrono::duration<double>(t1 - t0).count();
    const double cube = std::chrono::duration<double>(t2 - t1).count();
    ratios.push_back(cube / analyze);
    std::printf("round %d: analyze_trace %.3f s, cube %.4f s (%llu bytes), ratio %.4f\n", r + 1, analyze, cube,
                static_cast<unsigned long long>(std::filesystem::file_size(file)), cube / analyze);
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf("%llu events: median ratio cube / analyze_trace %.4f\n",
              static_cast<unsigned long long>(trace.event_count()), ratios[ratios.size() / 2]);
  std::filesystem::remove(file);
  return 0;
}
