// Benchmark: OTF2 reading speed and memory of the trace model.
// Generates a `halo` trace (default 8x8 ranks, 3800 steps: ~10.2 M events), writes it as OTF2,
// then times, `repeat` times each, (a) a bare OTF2 local-reader loop that only counts events and
// (b) wisp's read_otf2 into the model (including the derived matching and spans). Prints the
// medians as events/s, their ratio, and bytes/event of the model (table capacities and RSS).
//
//   read_bench [--dims 8x8] [--steps 3800] [--repeat 5] [--keep DIR] [--threads N]
// --threads: ReadOptions::threads of read_otf2 (default 0: one per core).
#include <otf2/otf2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bare_read.hpp"
#include "timing.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

using bench::median;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Resident set size in bytes (from /proc/self/statm).
std::uint64_t rss() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint32_t> dims{8, 8};
  std::uint32_t steps = 3800;
  int repeat = 5;
  std::string keep;
  ReadOptions read_options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--dims"))
      dims = {static_cast<std::uint32_t>(std::atoi(argv[i + 1])),
              static_cast<std::uint32_t>(std::atoi(std::strchr(argv[i + 1], 'x') + 1))};
    else if (!std::strcmp(argv[i], "--steps"))
      steps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat"))
      repeat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--keep"))
      keep = argv[i + 1];
    else if (!std::strcmp(argv[i], "--threads"))
      read_options.threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  const fs::path dir = keep.empty() ? fs::temp_directory_path() / "wisp-read-bench" : fs::path(keep);
  if (!fs::exists(dir / "traces.otf2")) {
    gen::HaloOptions o;
    o.dims = dims;
    o.steps = steps;
    o.overload_ranks = {0, 1};
    o.overload = 0.2;
    std::printf("generating halo %ux%u, %u steps ...\n", dims[0], dims[1], steps);
    const double t0 = now();
    const Trace t = gen::generate_halo(o);
    const double t1 = now();
    WriteOptions w;
    w.force = true;
    write_otf2(t, dir, w);
    std::printf("generated %llu events in %.2f s, wrote OTF2 in %.2f s\n",
                static_cast<unsigned long long>(t.event_count()), t1 - t0, now() - t1);
  }
  const fs::path anchor = dir / "traces.otf2";

  std::vector<double> bare, model;
  std::uint64_t events = 0;
  for (int k = 0; k < repeat; ++k) {
    const double t0 = now();
    events = bench::bare_count(anchor);
    bare.push_back(now() - t0);
  }
  std::uint64_t footprint = 0, rss_growth = 0, model_events = 0;
  for (int k = 0; k < repeat; ++k) {
    const std::uint64_t before = rss();
    const double t0 = now();
    const Trace t = read_otf2(dir, read_options);
    model.push_back(now() - t0);
    rss_growth = rss() - before;
    footprint = memory_footprint(t);
    model_events = t.event_count();
  }
  const double bare_rate = events / median(bare);
  const double model_rate = model_events / median(model);
  std::printf("archive            %s (%llu events)\n", dir.c_str(), static_cast<unsigned long long>(events));
  std::printf("bare OTF2 loop     median %.3f s  %.2f M events/s  (%d runs)\n", median(bare), bare_rate / 1e6, repeat);
  std::printf("wisp read_otf2     median %.3f s  %.2f M events/s  (%d runs)\n", median(model), model_rate / 1e6,
              repeat);
  std::printf("ratio              %.1f %% of the bare loop\n", 100.0 * model_rate / bare_rate);
  std::printf("model memory       %.1f bytes/event (tables), %.1f bytes/event (RSS growth)\n",
              static_cast<double>(footprint) / model_events, static_cast<double>(rss_growth) / model_events);
  return 0;
}
