// The verbs' step runner. See analysis_runner.hpp.
#include "wisp/driver/analysis_runner.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "wisp/trace/trace.hpp"

namespace wisp::driver {

namespace {

// Resident set size now [MB] (0 if /proc is not there).
long resident_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

}  // namespace

AnalysisRunner::AnalysisRunner(unsigned cores, const ProcessGroup* group)
    : cores_(cores != 0 ? cores : std::max(1u, std::thread::hardware_concurrency())),
      group_(group),
      who_(group ? "analyze, process " + std::to_string(group->process()) : std::string("analyze")) {}

void AnalysisRunner::step(const char* what, const std::function<void()>& work) {
  const auto t0 = std::chrono::steady_clock::now();
  const double exchanging = group_ ? group_->exchange_seconds() : 0;
  work();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const std::string exchanges =
      group_ ? fmt::format(", {:.3f} s of it in exchanges", group_->exchange_seconds() - exchanging) : "";
  spdlog::debug("{}: {} took {:.3f} s{} (RSS {} MB, peak so far {} MB)", who_, what, seconds, exchanges, resident_mb(),
                usage.ru_maxrss / 1024);
  const std::lock_guard<std::mutex> lock(mutex_);
  timings_.emplace_back(what, seconds);
}

std::function<void()> AnalysisRunner::beside(std::function<void()> work) {
  if (cores_ < 2) return StepRunner::beside(std::move(work));
  // Shared: the std::function returned must be copyable; the future's end waits for the work.
  auto done = std::make_shared<std::future<void>>(std::async(std::launch::async, std::move(work)));
  return [done] {
    if (done->valid()) done->get();
  };
}

void AnalysisRunner::freed() { return_free_memory(); }

TraceAnalyzer on_every_core() {
  return [](const std::string&, const Trace& trace, const TraceAnalysisOptions& options) {
    AnalysisRunner cores;
    return analyze_trace(trace, options, cores);
  };
}

std::vector<std::pair<std::string, double>> AnalysisRunner::timings() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return timings_;
}

}  // namespace wisp::driver
