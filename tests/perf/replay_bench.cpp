// Replay throughput benchmark (not a test): MPI operations per wall-clock second of wisp's replay
// and of SimGrid's own SMPI time-independent (TI) trace replay on the same generated `halo`
// traces, the same platform, the same allreduce algorithm (recursive doubling) and the same
// network model settings. The benchmark writes each trace in SMPI's TI format (one action file
// per rank) and runs `smpirun -replay`. Operations are what TI traces count as actions: every
// Isend, Irecv, Waitall, Allreduce, plus Init and Finalize.
//
// Columns: events and operations of the trace, its in-memory size, wisp's wall time (whole
// child process; sim = Engine::run only), operations per second, the child's peak resident
// memory and how much it grew beyond what it shared with the parent at fork (the simulation's
// own memory), then SMPI's wall time, rate and peak memory, and the speed-up: the median (and range) of
// the ratios of wisp and SMPI runs made in alternation.
// Usage: replay_bench [--ranks 16,256,1024] [--operations 1000000] [--repeat 3] [--no-smpi]
//                     [--platform platforms/crossbar.xml|free] [--scaling] [--costs]
//                     [--cfg KEY:VALUE ...] [--compare [--trace DIR]]
// --scaling also replays 256 ranks at 1/4, 1/2 and 1 x the operations (time and memory growth).
// --costs compares the trace-anchored replays with the model-only one instead of SMPI: in turn a
// model-only replay, the anchored identity (derives residuals) and a replay adding the residuals;
// events/s of each and the median (range) of their pairwise speed ratios to the model-only run.
// --cfg KEY:VALUE (repeatable): SimGrid settings added to wisp's in every replay (e.g. to count
// instructions under valgrind, one replay per process). --compare compares them with wisp's alone
// instead: in turn a replay without and one with them; the median (range) of the pairwise ratios
// of the child's CPU and wall time, and whether every simulated event time is identical.
// --platform free is a contention-free crossbar of one host per rank (FATPIPE links, crossbar.xml's
// 1 us and 12.5 GB/s); --trace DIR replays that OTF2 trace instead of halos (with --compare), on
// its calibrated platform unless --platform is given.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "timing.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/export.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

using bench::median;

struct Args {
  std::vector<std::uint32_t> ranks{16, 256, 1024};
  std::uint64_t operations = 1'000'000;
  int repeat = 3;
  bool smpi = true;
  bool scaling = false;
  bool costs = false;
  std::string platform = "platforms/crossbar.xml";
  bool platform_given = false;
  std::vector<std::string> cfg;  // SimGrid settings added to wisp's
  bool compare = false;          // alternate replays without and with them
  std::string trace;             // a real trace instead of the halos
};

// A 2-D grid of `ranks` with both sides >= 3 (so SMPI's (src, dst, tag) request keys are unique).
std::vector<std::uint32_t> grid(std::uint32_t ranks) {
  for (std::uint32_t a = static_cast<std::uint32_t>(std::sqrt(ranks)); a >= 3; --a)
    if (ranks % a == 0 && ranks / a >= 3) return {ranks / a, a};
  throw std::runtime_error(fmt::format("no grid of {} ranks with both sides >= 3", ranks));
}

Trace halo(std::uint32_t ranks, std::uint64_t operations) {
  gen::HaloOptions o;
  o.dims = grid(ranks);
  // 4 Irecv + 4 Isend + Waitall + Allreduce per rank and step.
  o.steps = static_cast<std::uint32_t>((operations + 10ull * ranks - 1) / (10ull * ranks));
  return gen::generate_halo(o);
}

// The benchmark's platform for `ranks` ranks: the file, or "free" (contention-free crossbar).
Platform bench_platform(const Args& a, std::uint32_t ranks) {
  if (a.platform == "free") return contention_free_crossbar(ranks, 1e-6, 12.5e9, 0, 65536);
  return load_platform(a.platform);
}

// The trace in SMPI's TI format, written by wisp's exporter (replay/export.hpp): init, compute
// <flops> between MPI calls (1 Gflop/s hosts), irecv/isend, waitall, allreduce, barrier (Finalize),
// finalize, and MPI_Init's wait as a sleep.
void write_ti(const Trace& t, const fs::path& dir, const Platform& p, const std::string& platform_file) {
  ExportPlatform e;
  e.reference_speed = p.reference_speed > 0 ? p.reference_speed : 1e9;
  e.mpi = p.mpi;
  e.platform_file = platform_file;
  ExportOptions o;
  o.algorithms = parse_collective_algorithms("allreduce=recursive_doubling");
  export_smpi_ti(t, e, o, dir, true);
}

struct Run {
  double wall = 0;
  double simulated = 0;
  std::uint64_t max_rss_kib = 0;
};

// Runs smpirun with stdout/stderr to `log`, returns wall time, peak RSS of the process tree and
// the simulated time it prints.
Run run_smpi(const Trace& t, const fs::path& dir, const std::string& platform) {
  const fs::path rss = dir / "smpi.rss";
  std::vector<std::string> args = {"/usr/bin/time",
                                   "-f",
                                   "%M",
                                   "-o",
                                   rss.string(),
                                   "smpirun",
                                   "-np",
                                   std::to_string(t.rank_count()),
                                   "-platform",
                                   fs::absolute(platform).string(),
                                   "-hostfile",
                                   "hostfile.txt",
                                   "-replay",
                                   "index.txt",
                                   "-no-privatize",
                                   "--cfg=smpi/send-is-detached-thresh:65537",
                                   "--cfg=smpi/async-small-thresh:65537",
                                   "--cfg=smpi/allreduce:rdb",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/TCP-gamma:0",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=contexts/factory:raw",
                                   "--cfg=contexts/stack-size:256",
                                   "--log=root.thresh:warning",
                                   "--log=smpi_replay.thresh:info"};
  const fs::path log = dir / "smpi.log";
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::FILE* f = std::freopen(log.c_str(), "w", stdout);
    (void)f;
    dup2(fileno(stdout), 2);
    if (chdir(dir.c_str()) != 0) _exit(126);  // the index names the rank files relative to it
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/usr/bin/time", argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Run r;
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("smpirun failed, see " + log.string());
  // /usr/bin/time reports the peak of smpirun and its waited-for descendants (smpimain) [KiB]; a
  // fork of this benchmark would count the benchmark's own pages.
  std::ifstream(rss) >> r.max_rss_kib;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("Simulation time ");
    if (at != std::string::npos) r.simulated = std::stod(line.substr(at + 16));
  }
  return r;
}

struct Result {
  std::uint32_t ranks = 0;
  std::uint64_t events = 0, operations = 0, messages = 0;
  double trace_mib = 0;
  double wall = 0, simulation = 0, simulated = 0;
  double child_mib = 0, parent_mib = 0;
  double smpi_wall = 0, smpi_simulated = 0, smpi_mib = 0;
  double speedup = 0, speedup_min = 0, speedup_max = 0;  // median, range of the runs' ratios
};

Result measure(const Args& a, std::uint32_t ranks, std::uint64_t operations, bool smpi) {
  Result res;
  res.ranks = ranks;
  std::fprintf(stderr, "generating halo of %u ranks, %llu operations...\n", ranks,
               static_cast<unsigned long long>(operations));
  const Trace t = halo(ranks, operations);
  res.events = t.event_count();
  res.trace_mib = static_cast<double>(memory_footprint(t)) / (1 << 20);
  if (smpi && a.platform == "free") throw std::runtime_error("--platform free needs --no-smpi");
  Platform p = bench_platform(a, ranks);
  p.mpi.default_overhead = 0;  // SMPI's replay has no per-call overhead either
  p.mpi.overheads.clear();
  ReplayOptions o;
  o.algorithms = parse_collective_algorithms("allreduce=recursive_doubling");
  o.progress_interval = 0;
  o.simgrid_config = a.cfg;
  // wisp and SMPI alternate, so that slow phases of a noisy machine hit both alike; the speed-up
  // is the median of the runs' pairwise ratios.
  fs::path dir;
  if (smpi) {
    dir = fs::temp_directory_path() / fmt::format("wisp-bench-ti-{}-{}", getpid(), ranks);
    write_ti(t, dir, p, a.platform);
  }
  std::vector<double> walls, sims, smpi_walls, ratios;
  for (int k = 0; k < a.repeat; ++k) {
    const ReplayResult r = replay(t, p, o);
    walls.push_back(r.statistics.child_seconds);
    sims.push_back(r.statistics.simulation_seconds);
    res.operations = r.statistics.mpi_operations;
    res.messages = r.statistics.messages;
    res.simulated = r.runtime;
    res.child_mib = static_cast<double>(r.statistics.child_peak_rss_kib) / 1024;
    res.parent_mib = static_cast<double>(r.statistics.child_start_rss_kib) / 1024;
    std::fprintf(stderr, "  wisp run %d: %.3f s (simulation %.3f s), %llu messages, simulated %.9f s\n", k + 1,
                 walls.back(), sims.back(), static_cast<unsigned long long>(r.statistics.messages), r.runtime);
    if (!smpi) continue;
    const Run m = run_smpi(t, dir, a.platform);
    smpi_walls.push_back(m.wall);
    ratios.push_back(m.wall / walls.back());
    res.smpi_simulated = m.simulated;
    res.smpi_mib = static_cast<double>(m.max_rss_kib) / 1024;
    std::fprintf(stderr, "  smpi run %d: %.3f s (speed-up %.2fx)\n", k + 1, m.wall, ratios.back());
  }
  res.wall = median(walls);
  res.simulation = median(sims);
  if (smpi) {
    res.smpi_wall = median(smpi_walls);
    res.speedup = median(ratios);
    res.speedup_min = *std::min_element(ratios.begin(), ratios.end());
    res.speedup_max = *std::max_element(ratios.begin(), ratios.end());
    fs::remove_all(dir);
  }
  return res;
}

// Model-only, anchored identity and residual replays of one trace, alternating.
void measure_costs(const Args& a, std::uint32_t ranks, std::uint64_t operations) {
  std::fprintf(stderr, "generating halo of %u ranks, %llu operations...\n", ranks,
               static_cast<unsigned long long>(operations));
  const Trace t = halo(ranks, operations);
  Platform p = bench_platform(a, ranks);
  ReplayOptions model;
  model.algorithms = parse_collective_algorithms("allreduce=recursive_doubling");
  model.progress_interval = 0;
  model.simgrid_config = a.cfg;
  ReplayOptions anchor = model, residual = model;
  anchor.anchor = true;
  std::vector<double> walls[3], ratio[2];
  double runtimes[3] = {0, 0, 0};
  for (int k = 0; k < a.repeat; ++k) {
    const ReplayOptions* modes[3] = {&model, &anchor, &residual};
    for (int m = 0; m < 3; ++m) {
      const ReplayResult r = replay(t, p, *modes[m]);
      if (m == 1) residual.residuals = r.residuals;
      walls[m].push_back(r.statistics.child_seconds);
      runtimes[m] = r.runtime;
      std::fprintf(stderr, "  run %d %-9s %.3f s\n", k + 1,
                   m == 0   ? "model"
                   : m == 1 ? "anchored"
                            : "residuals",
                   walls[m].back());
    }
    ratio[0].push_back(walls[0].back() / walls[1].back());
    ratio[1].push_back(walls[0].back() / walls[2].back());
  }
  const double events = static_cast<double>(t.event_count());
  std::printf(
      "%6u %9.0f | model %7.3f s %9.0f ev/s | anchored %7.3f s %9.0f ev/s %5.2fx (%.2f-%.2f) | residuals "
      "%7.3f s %9.0f ev/s %5.2fx (%.2f-%.2f) | runtimes %.6f %.6f %.6f s\n",
      ranks, events, median(walls[0]), events / median(walls[0]), median(walls[1]), events / median(walls[1]),
      median(ratio[0]), *std::min_element(ratio[0].begin(), ratio[0].end()),
      *std::max_element(ratio[0].begin(), ratio[0].end()), median(walls[2]), events / median(walls[2]),
      median(ratio[1]), *std::min_element(ratio[1].begin(), ratio[1].end()),
      *std::max_element(ratio[1].begin(), ratio[1].end()), runtimes[0], runtimes[1], runtimes[2]);
  std::fflush(stdout);
}

struct Comparison {
  std::uint64_t differing = 0;  // events whose simulated times differ
  double largest = 0;           // largest difference [s]
};

Comparison compare_times(const Trace& x, const Trace& y) {
  Comparison c;
  for (Rank r = 0; r < x.rank_count(); ++r)
    for (EventIndex i = 0; i < x.ranks[r].events.size(); ++i) {
      const double d = std::abs(x.ranks[r].events[i].time - y.ranks[r].events[i].time);
      if (d == 0) continue;
      ++c.differing;
      c.largest = std::max(c.largest, d);
    }
  return c;
}

std::string median_range(const std::vector<double>& v) {
  return fmt::format("{:.3f}x ({:.3f}-{:.3f})", median(v), *std::min_element(v.begin(), v.end()),
                     *std::max_element(v.begin(), v.end()));
}

// CPU time (user + system) of the waited-for children so far [s]: replay()'s child, once reaped.
double children_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

// wisp's settings (the anchor) and the same plus a.cfg, alternating; ratio = anchor / candidate.
// On a shared machine the child's CPU time is steadier than its wall time: both are reported.
void measure_settings(const Args& a, const std::string& name, const Trace& t, const Platform& p, ReplayOptions o) {
  ReplayOptions candidate = o;
  candidate.simgrid_config = a.cfg;
  std::vector<double> wall[2], cpu[2], wall_ratio, cpu_ratio;
  ReplayResult last[2];
  for (int k = 0; k < a.repeat; ++k) {
    for (int m = 0; m < 2; ++m) {
      const double cpu_before = children_cpu_seconds();
      last[m] = replay(t, p, m == 0 ? o : candidate);
      cpu[m].push_back(children_cpu_seconds() - cpu_before);
      wall[m].push_back(last[m].statistics.child_seconds);
      std::fprintf(stderr, "  run %d %-9s wall %.3f s (simulation %.3f s), CPU %.3f s, simulated %.9f s\n", k + 1,
                   m == 0 ? "default" : "candidate", wall[m].back(), last[m].statistics.simulation_seconds,
                   cpu[m].back(), last[m].runtime);
    }
    wall_ratio.push_back(wall[0].back() / wall[1].back());
    cpu_ratio.push_back(cpu[0].back() / cpu[1].back());
  }
  const Comparison c = compare_times(last[0].trace, last[1].trace);
  std::printf(
      "%s %9llu ev | default wall %7.3f s CPU %7.3f s | candidate wall %7.3f s CPU %7.3f s | speed-up CPU %s, "
      "wall %s | simulated %.9f vs %.9f s, %s\n",
      name.c_str(), static_cast<unsigned long long>(t.event_count()), median(wall[0]), median(cpu[0]), median(wall[1]),
      median(cpu[1]), median_range(cpu_ratio).c_str(), median_range(wall_ratio).c_str(), last[0].runtime,
      last[1].runtime,
      c.differing == 0 ? "every event time identical"
                       : fmt::format("{} event times differ (up to {:.3g} s)", c.differing, c.largest).c_str());
  std::fflush(stdout);
}

void compare_settings(const Args& a) {
  std::string cfg;
  for (const std::string& s : a.cfg) cfg += " " + s;
  std::printf(
      "SimGrid settings%s vs wisp's, median of %d alternating runs; platform %s; speed-up = default wall / "
      "candidate wall (> 1: faster)\n",
      cfg.c_str(), a.repeat, a.platform.c_str());
  ReplayOptions o;
  o.progress_interval = 0;
  if (!a.trace.empty()) {
    const Trace t = read_otf2(a.trace);
    Platform p;
    if (a.platform_given) {
      p = bench_platform(a, t.rank_count());
    } else {
      const Calibration c = calibrate(t);
      p = c.platform;
      o.algorithms = c.algorithms;
    }
    measure_settings(a, a.trace, t, p, o);
    return;
  }
  o.algorithms = parse_collective_algorithms("allreduce=recursive_doubling");
  for (std::uint32_t ranks : a.ranks) {
    std::fprintf(stderr, "generating halo of %u ranks, %llu operations...\n", ranks,
                 static_cast<unsigned long long>(a.operations));
    const Trace t = halo(ranks, a.operations);
    Platform p = bench_platform(a, ranks);
    p.mpi.default_overhead = 0;
    p.mpi.overheads.clear();
    measure_settings(a, fmt::format("{:6} ranks", ranks), t, p, o);
  }
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) throw std::runtime_error(s + " needs a value");
      return std::string(argv[++i]);
    };
    if (s == "--ranks") {
      a.ranks.clear();
      std::stringstream in(next());
      std::string part;
      while (std::getline(in, part, ',')) a.ranks.push_back(static_cast<std::uint32_t>(std::stoul(part)));
    } else if (s == "--operations")
      a.operations = std::stoull(next());
    else if (s == "--repeat")
      a.repeat = std::stoi(next());
    else if (s == "--no-smpi")
      a.smpi = false;
    else if (s == "--scaling")
      a.scaling = true;
    else if (s == "--costs")
      a.costs = true;
    else if (s == "--platform") {
      a.platform = next();
      a.platform_given = true;
    } else if (s == "--cfg")
      a.cfg.push_back(next());
    else if (s == "--compare")
      a.compare = true;
    else if (s == "--trace")
      a.trace = next();
    else
      throw std::runtime_error("unknown option " + s);
  }
  return a;
}

void print(const Result& r) {
  const double rate = static_cast<double>(r.operations) / r.wall;
  std::printf("%6u %9llu %9llu %8.1f %8.3f %8.3f %11.0f %8.0f %8.0f", r.ranks,
              static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.operations), r.trace_mib,
              r.wall, r.simulation, rate, r.child_mib, r.child_mib - r.parent_mib);
  if (r.smpi_wall > 0) {
    const double smpi_rate = static_cast<double>(r.operations) / r.smpi_wall;
    std::printf(" %8.3f %11.0f %8.0f %7.2fx (%.2f-%.2f)  sim %.6f vs %.6f s", r.smpi_wall, smpi_rate, r.smpi_mib,
                r.speedup, r.speedup_min, r.speedup_max, r.simulated, r.smpi_simulated);
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse(argc, argv);
    if (a.compare) {
      if (a.cfg.empty()) throw std::runtime_error("--compare needs --cfg settings");
      compare_settings(a);
      return 0;
    }
    if (a.costs) {
      std::printf(
          "halo traces, %llu MPI operations each, median of %d alternating runs; platform %s; speed ratio "
          "= model-only wall / wall (>= 1: not slower)\n",
          static_cast<unsigned long long>(a.operations), a.repeat, a.platform.c_str());
      for (std::uint32_t r : a.ranks) measure_costs(a, r, a.operations);
      return 0;
    }
    std::string cfg;
    for (const std::string& s : a.cfg) cfg += " " + s;
    std::printf(
        "halo traces, %llu MPI operations each, median of %d runs; platform %s, allreduce "
        "recursive doubling, CM02, no overheads%s%s\n",
        static_cast<unsigned long long>(a.operations), a.repeat, a.platform.c_str(),
        cfg.empty() ? "" : "; SimGrid settings", cfg.c_str());
    std::printf("%6s %9s %9s %8s %8s %8s %11s %8s %8s %8s %11s %8s %8s\n", "ranks", "events", "ops", "trace", "wisp[s]",
                "sim[s]", "wisp ops/s", "peak MiB", "+MiB", "smpi[s]", "smpi ops/s", "RSS MiB", "speed-up");
    for (std::uint32_t p : a.ranks) print(measure(a, p, a.operations, a.smpi));
    if (a.scaling) {
      std::printf("growth with events at 256 ranks\n");
      for (std::uint64_t ops : {a.operations / 4, a.operations / 2, a.operations}) print(measure(a, 256, ops, a.smpi));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
