// Benchmark: "analyses at the speed of reading": every figure of `wisp analyze` as a
// ratio to the bare OTF2 read of the same archive, measured in the same run. Per trace size it
// writes a halo archive (or takes --trace DIR) and runs, alternating, `repeat` rounds of
//   bare     a local-reader loop over the archive that only counts records (the anchor),
//   library  read_otf2 + analyze_trace in a forked child (read time, per-step times),
//   serial   read_otf2 alone with ReadOptions::threads = 1 (the ranks one after another),
//   cli      the wisp binary: `wisp analyze DIR` (stdout to /dev/null), fork + exec,
//   before   (with --before PATH) another wisp binary the same way, e.g. a build of main, so that
//            before/after ratios come from the same alternating rounds (after cli in the first,
//            third, ... round, before it in the others),
// each in its own process, its wall time, user + system time and peak RSS (wait4's rusage). The
// ratios are taken per round (each against the bare read of the same round), the medians printed.
// With two or more sizes it prints the growth exponents log(t2/t1) / log(n2/n1) from the
// smallest to the largest size, and a markdown table for the READMEs.
//
//   analyze_read_bench [--wisp PATH] [--before PATH] [--dims 8x8] [--steps 3720,18600] [--repeat 3]
//                      [--dir D] [--trace DIR] [--keep] [--no-steps]
// --no-steps leaves out the library and serial runs (read and per-step ratios).
// Archives are written to D/steps-N (default D = the temporary directory's wisp-analyze-read-bench) and removed at the
// end unless --keep.
#include <otf2/otf2.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bare_read.hpp"
#include "timing.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/driver/analysis_runner.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

using bench::median;
using bench::numbers;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// One process run: wall, user + system seconds, system seconds, peak RSS (bytes), and what the
// child wrote to its pipe.
struct Run {
  double wall = 0, cpu = 0, sys = 0;
  double peak = 0;
  std::string answer;
};

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); }

// Forks a child that runs `body(fd)` (which may exec) and exits with its code; waits with wait4
// and reads the pipe.
template <typename Body>
Run in_child(Body&& body) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(2);
  std::fflush(nullptr);
  const double t0 = now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const int code = body(fds[1]);
    close(fds[1]);
    std::fflush(nullptr);
    _exit(code);
  }
  close(fds[1]);
  Run r;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) r.answer.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  rusage u{};
  wait4(pid, &status, 0, &u);
  r.wall = now() - t0;
  r.cpu = seconds(u.ru_utime) + seconds(u.ru_stime);
  r.sys = seconds(u.ru_stime);
  r.peak = static_cast<double>(u.ru_maxrss) * 1024;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "a measured child failed (status %d)\n", status);
    std::exit(1);
  }
  return r;
}

Run bare_run(const fs::path& dir) {
  return in_child([&](int fd) {
    const std::uint64_t n = bench::bare_count(dir / "traces.otf2");
    return write(fd, &n, sizeof n) == sizeof n ? 0 : 1;
  });
}

// read_otf2 + analyze_trace; answers "read seconds\n", "analyze_trace seconds\n" (wall: its steps
// may overlap), then "name\tseconds\n" per step.
Run library_run(const fs::path& dir) {
  return in_child([&](int fd) {
    const double t0 = now();
    const Trace trace = read_otf2(dir);
    std::string out = std::to_string(now() - t0) + "\n";
    const double t1 = now();
    driver::AnalysisRunner runner;  // as wisp analyze runs it
    const TraceAnalysis a = analyze_trace(trace, {}, runner);
    out += std::to_string(now() - t1) + "\n";
    for (const auto& [name, s] : runner.timings()) out += name + "\t" + std::to_string(s) + "\n";
    return write(fd, out.data(), out.size()) == static_cast<ssize_t>(out.size()) ? 0 : 1;
  });
}

// read_otf2 alone on one thread; answers "read seconds".
Run serial_read_run(const fs::path& dir) {
  return in_child([&](int fd) {
    ReadOptions one;
    one.threads = 1;
    const double t0 = now();
    const Trace trace = read_otf2(dir, one);
    const std::string out = std::to_string(now() - t0) + "\n";
    return trace.event_count() > 0 && write(fd, out.data(), out.size()) == static_cast<ssize_t>(out.size()) ? 0 : 1;
  });
}

Run cli_run(const std::string& wisp, const fs::path& dir) {
  return in_child([&](int) {
    if (!freopen("/dev/null", "w", stdout)) return 1;
    execl(wisp.c_str(), wisp.c_str(), "analyze", dir.c_str(), static_cast<char*>(nullptr));
    return 127;
  });
}

struct Figures {
  double events = 0;
  std::vector<double> bare, bare_rate, read, read_serial, analyze_lib, cli, cli_cpu, cli_sys, cli_peak, lib_peak;
  std::vector<double> before, before_cpu, before_peak;  // --before: the other binary
  std::vector<std::string> step_names;
  std::vector<std::vector<double>> steps;  // per step: ratio per round
  double bare_wall = 0, cli_wall = 0, cli_cpu_s = 0, cli_peak_b = 0;
};

void parse_library(const std::string& answer, double bare, Figures& f) {
  std::size_t at = answer.find('\n');
  f.read.push_back(std::atof(answer.substr(0, at).c_str()) / bare);
  const std::size_t second = answer.find('\n', at + 1);
  f.analyze_lib.push_back(std::atof(answer.substr(at + 1, second - at - 1).c_str()) / bare);
  at = second;
  for (std::size_t k = 0, next; (next = answer.find('\n', at + 1)) != std::string::npos; at = next, ++k) {
    const std::string line = answer.substr(at + 1, next - at - 1);
    const std::size_t tab = line.find('\t');
    const double s = std::atof(line.c_str() + tab + 1);
    if (f.steps.size() <= k) {
      f.steps.emplace_back();
      f.step_names.push_back(line.substr(0, tab));
    }
    f.steps[k].push_back(s / bare);
  }
}

struct Setup {
  std::string wisp, before;
  int repeat = 3;
  bool steps = true;
};

Figures measure(const Setup& o, const fs::path& dir) {
  const std::string& wisp = o.wisp;
  const int repeat = o.repeat;
  Figures f;
  std::vector<double> bare_walls, cli_walls, cli_cpus, cli_peaks;
  for (int k = 0; k < repeat; ++k) {
    const Run bare = bare_run(dir);
    std::uint64_t n = 0;
    std::memcpy(&n, bare.answer.data(), sizeof n);
    f.events = static_cast<double>(n);
    const Run lib = o.steps ? library_run(dir) : Run{};
    const Run serial = o.steps ? serial_read_run(dir) : Run{};
    // Which binary runs right after the library and serial children alternates from round to round,
    // so that neither always meets the machine as the 2-3 GB children leave it.
    const bool before_first = !o.before.empty() && k % 2 == 1;
    const Run early = before_first ? cli_run(o.before, dir) : Run{};
    const Run cli = cli_run(wisp, dir);
    const Run late = !o.before.empty() && !before_first ? cli_run(o.before, dir) : Run{};
    bare_walls.push_back(bare.wall);
    f.bare_rate.push_back(f.events / bare.wall);
    if (o.steps) parse_library(lib.answer, bare.wall, f);
    if (o.steps) f.read_serial.push_back(std::atof(serial.answer.c_str()) / bare.wall);
    if (o.steps) f.lib_peak.push_back(lib.peak / f.events);
    if (!o.before.empty()) {
      const Run& b = before_first ? early : late;
      f.before.push_back(b.wall / bare.wall);
      f.before_cpu.push_back(b.cpu / bare.cpu);
      f.before_peak.push_back(b.peak / f.events);
      std::fprintf(stderr, "  round %d: before: wisp analyze %.3f s (cpu %.3f s, sys %.3f s, %.0f MB)\n", k + 1, b.wall,
                   b.cpu, b.sys, b.peak / 1e6);
    }
    f.cli.push_back(cli.wall / bare.wall);
    f.cli_cpu.push_back(cli.cpu / bare.cpu);
    f.cli_sys.push_back(cli.sys / std::max(cli.cpu, 1e-9));
    f.cli_peak.push_back(cli.peak / f.events);
    cli_walls.push_back(cli.wall);
    cli_cpus.push_back(cli.cpu);
    cli_peaks.push_back(cli.peak);
    std::fprintf(stderr,
                 "  round %d: bare %.3f s, library %.3f s (read %.3f s, 1 thread %.3f s), wisp analyze %.3f s "
                 "(cpu %.3f s, sys %.3f s, %.0f MB)\n",
                 k + 1, bare.wall, lib.wall, f.read.empty() ? 0 : f.read.back() * bare.wall,
                 std::atof(serial.answer.c_str()), cli.wall, cli.cpu, cli.sys, cli.peak / 1e6);
  }
  f.bare_wall = median(bare_walls);
  f.cli_wall = median(cli_walls);
  f.cli_cpu_s = median(cli_cpus);
  f.cli_peak_b = median(cli_peaks);
  return f;
}

void print(const Figures& f, const std::string& label, int repeat) {
  std::printf("%s: %.0f events, median of %d alternating rounds, ratios to the bare read of the same round\n",
              label.c_str(), f.events, repeat);
  std::printf("  bare OTF2 read                      %.3f s = %.1f M events/s (the anchor, 1x)\n", f.bare_wall,
              median(f.bare_rate) / 1e6);
  std::printf("  wisp analyze (process, wall)        %.2fx  (%.3f s)\n", median(f.cli), f.cli_wall);
  std::printf("  wisp analyze (user + system time)   %.2fx of the bare read's; system %.0f %% of it\n",
              median(f.cli_cpu), 100 * median(f.cli_sys));
  std::printf("  wisp analyze peak RSS               %.1f bytes/event (%.0f MB)\n", median(f.cli_peak),
              f.cli_peak_b / 1e6);
  if (!f.before.empty())
    std::printf(
        "  before (--before binary)            %.2fx wall, %.2fx user + system, %.1f bytes/event; "
        "after/before %.3f wall, %.3f user + system\n",
        median(f.before), median(f.before_cpu), median(f.before_peak), median(f.cli) / median(f.before),
        median(f.cli_cpu) / median(f.before_cpu));
  if (f.read.empty()) return;
  std::printf("  read_otf2 into the model            %.2fx (%.0f %% of the bare read's speed)\n", median(f.read),
              100 / median(f.read));
  std::printf("  read_otf2 on 1 thread               %.2fx (%.0f %%)\n", median(f.read_serial),
              100 / median(f.read_serial));
  std::printf("  analyze_trace, all steps (wall)     %.2fx (peak RSS with the read %.1f bytes/event)\n",
              median(f.analyze_lib), median(f.lib_peak));
  for (std::size_t k = 0; k < f.steps.size(); ++k)
    std::printf("    %-60s %.2fx\n", f.step_names[k].c_str(), median(f.steps[k]));
}

double exponent(double y1, double y2, double n1, double n2) { return std::log(y2 / y1) / std::log(n2 / n1); }

std::string ratio_cell(const std::vector<double>& v) {
  if (v.empty()) return "-";
  char cell[32];
  std::snprintf(cell, sizeof cell, "%.2fx", median(v));
  return cell;
}

void print_table(const std::vector<Figures>& all) {
  std::printf(
      "\n| events | bare read | `wisp analyze` wall | user + system | system share | peak RSS | read_otf2 | "
      "read_otf2, 1 thread | analyze_trace | before: wall |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const Figures& f : all)
    std::printf("| %.1f M | %.1f M events/s | %.2fx | %.2fx | %.0f %% | %.0f B/event | %s | %s | %s | %s |\n",
                f.events / 1e6, median(f.bare_rate) / 1e6, median(f.cli), median(f.cli_cpu), 100 * median(f.cli_sys),
                median(f.cli_peak), ratio_cell(f.read).c_str(), ratio_cell(f.read_serial).c_str(),
                ratio_cell(f.analyze_lib).c_str(), ratio_cell(f.before).c_str());
  if (all.size() < 2) return;
  const Figures& a = all.front();
  const Figures& b = all.back();
  std::printf(
      "\ngrowth exponents %.1f M -> %.1f M events: wall %.3f, user + system %.3f, peak RSS %.3f "
      "(bare read wall %.3f)\n",
      a.events / 1e6, b.events / 1e6, exponent(a.cli_wall, b.cli_wall, a.events, b.events),
      exponent(a.cli_cpu_s, b.cli_cpu_s, a.events, b.events), exponent(a.cli_peak_b, b.cli_peak_b, a.events, b.events),
      exponent(a.bare_wall, b.bare_wall, a.events, b.events));
}

// In a child of its own: the measured runs are forked from this process, and a heap that once held
// the generated trace would make their fresh allocations copy-on-write page faults (the library
// read measured 1.6x slower that way).
void write_halo(const fs::path& dir, const std::vector<std::uint32_t>& dims, std::uint32_t steps) {
  if (fs::exists(dir / "traces.otf2")) return;
  in_child([&](int) {
    gen::HaloOptions o;
    o.dims = dims;
    o.steps = steps;
    o.overload_ranks = {5};
    o.overload = 0.3;
    WriteOptions w;
    w.force = true;
    write_otf2(gen::generate_halo(o), dir, w);
    return 0;
  });
}

}  // namespace

int main(int argc, char** argv) {
  Setup o;
  o.wisp = (fs::path(argv[0]).parent_path().parent_path() / "wisp").string();
  std::vector<std::uint32_t> dims{8, 8}, steps{3720, 18600};
  fs::path base = fs::temp_directory_path() / "wisp-analyze-read-bench", trace;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--keep")
      keep = true;
    else if (a == "--wisp")
      o.wisp = v, ++i;
    else if (a == "--before")
      o.before = v, ++i;
    else if (a == "--no-steps")
      o.steps = false;
    else if (a == "--dims")
      dims = numbers(v, 'x'), ++i;
    else if (a == "--steps")
      steps = numbers(v, ','), ++i;
    else if (a == "--repeat")
      o.repeat = std::max(1, std::atoi(v)), ++i;
    else if (a == "--dir")
      base = v, ++i;
    else if (a == "--trace")
      trace = v, ++i;
  }
  std::vector<Figures> all;
  if (!trace.empty()) {
    all.push_back(measure(o, trace));
    print(all.back(), trace.string(), o.repeat);
  }
  for (std::size_t i = 0; trace.empty() && i < steps.size(); ++i) {
    const fs::path dir = base / ("steps-" + std::to_string(steps[i]));
    std::fprintf(stderr, "halo %ux%u, %u steps -> %s\n", dims[0], dims[1], steps[i], dir.c_str());
    write_halo(dir, dims, steps[i]);
    all.push_back(measure(o, dir));
    print(
        all.back(),
        "halo " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + ", " + std::to_string(steps[i]) + " steps",
        o.repeat);
    std::fflush(stdout);
    if (!keep) fs::remove_all(dir);
  }
  print_table(all);
  return 0;
}
