// All analyses of `wisp analyze`. See trace_analysis.hpp.
#include "wisp/analysis/trace_analysis.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

using Timings = std::vector<std::pair<std::string, double>>;

// Resident set size now [MB] (0 if /proc is not there).
long resident_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

// Runs `step`, records its wall time and logs it (debug level: `wisp -vv analyze`).
template <typename Step>
void timed(Timings& timings, const char* what, Step&& step) {
  const auto t0 = std::chrono::steady_clock::now();
  step();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  timings.emplace_back(what, seconds);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  spdlog::debug("analyze: {} took {:.3f} s (RSS {} MB, peak so far {} MB)", what, seconds, resident_mb(),
                usage.ru_maxrss / 1024);
}

// Runs `work` on a thread of its own when `beside` (the caller goes on with other steps), else
// when get() is called on the result; get() rethrows what it threw.
template <typename Work>
std::future<void> start(bool beside, Work&& work) {
  return std::async(beside ? std::launch::async : std::launch::deferred, std::forward<Work>(work));
}

WaitKind kind_of(WaitPattern p) {
  switch (p) {
    case WaitPattern::LateSender:
      return WaitKind::LateSender;
    case WaitPattern::WaitAtNxN:
      return WaitKind::WaitNxN;
    case WaitPattern::WaitAtBarrier:
      return WaitKind::WaitBarrier;
  }
  return WaitKind::LateSender;
}

}  // namespace

std::optional<WindowOptions> resolve_windows(const WindowChoice& choice, double elapsed) {
  if (!(elapsed > 0)) return std::nullopt;
  WindowOptions w;
  w.length = choice.length.value_or(elapsed / WindowChoice::kDefaultBaseWindows);
  const std::uint32_t fixed = 0;
  w.min_events = choice.min_events.value_or(choice.length ? fixed : WindowChoice::kDefaultMinEvents);
  return w;
}

AnalysisParts analysis_parts(const std::vector<std::string>& requested) {
  const auto wanted = [&](AnalysisKind a) {
    return std::find(requested.begin(), requested.end(), analysis_key(a)) != requested.end();
  };
  return AnalysisParts{wanted(AnalysisKind::Pag), wanted(AnalysisKind::WaitEstimate), wanted(AnalysisKind::Pop)};
}

TraceBasedWaits trace_based_waits(const Trace& trace, const WaitStates& waits) {
  TraceBasedWaits out;
  for (CallpathId cp = 0; cp < trace.defs.callpaths.size(); ++cp) {
    const auto pattern = wait_pattern_of(trace.defs.region_of(cp).mpi);
    if (!pattern) continue;
    const CallpathMatrix& seconds = waits.seconds[static_cast<int>(kind_of(*pattern))];
    for (Rank r = 0; r < trace.rank_count(); ++r) out[{cp, r}] = seconds.at(slot_of(cp), r);
  }
  return out;
}

TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options) {
  TraceAnalysis a;
  a.parts = options.parts;
  const unsigned cores = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const bool beside = cores > 1 && options.parts.pag;
  // The wait-path analysis and the PAG read only the trace: with two cores they are built side by side.
  Timings first;
  std::future<void> analyzer_one = start(beside, [&] {
    timed(first, "the wait-path analysis (wait states, critical path, imbalance, delay costs)",
          [&] { a.wait_paths = analyze_wait_paths(trace, options.wait_paths); });
    timed(first, "metric table", [&] { a.table = metric_table(a.wait_paths); });
    a.threads = thread_profile(trace);  // empty unless the trace has other threads
    a.communication = communication_matrix(trace);
    // The estimate is compared with the wait-path analysis's wait states, not with a second wait-state search.
    if (options.parts.wait_estimate)
      timed(first, "minimum-based wait estimate", [&] {
        const TraceBasedWaits trace_based = trace_based_waits(trace, a.wait_paths.waits);
        a.waits = estimate_waits(trace, &trace_based);
      });
  });
  // The PAG serves the near-critical paths and the MBM through its CPM, and POP's ideal-network
  // clock replay through its second variant (rendezvous by the eager limit, not as observed), so
  // that only one graph is built (what analyze_pag() does, step by step here for the timings).
  PopAnalysisOptions pop;
  pop.pop = options.pop;
  pop.windows = resolve_windows(options.windows, trace.span());
  Timings graph, pop_timings;
  if (options.parts.pag) {
    PagOptions pag_options;
    pag_options.vertex_times = false;
    if (options.parts.pop) pag_options.ideal_eager_limit = options.pop.eager_limit;
    timed(graph, "program activity graph", [&] { a.pag.pag = build_pag(trace, pag_options); });
  }
  analyzer_one.get();
  return_free_memory();  // what the build and the wait-path analysis freed: the next steps' tables take its place
  a.timings = first;
  if (!options.parts.pag) {
    if (options.parts.pop)
      timed(a.timings, "POP factors and windows (ideal-network clock replay)",
            [&] { a.pop = analyze_pop(trace, pop); });
    return a;
  }
  // POP's clock replay reads only the PAG and keeps a few values per rank: beside the CPM and the
  // near-critical paths, which read only the PAG too.
  std::future<void> pop_step = start(beside && options.parts.pop, [&] {
    if (options.parts.pop)
      timed(pop_timings, "POP factors and windows (ideal-network clock replay)",
            [&] { a.pop = analyze_pop(trace, pop, &a.pag.pag); });
  });
  // Without earliest times: the search and the MBM read only the latest times and the length.
  std::vector<std::uint32_t> critical;
  timed(graph, "critical path method", [&] { a.pag.cpm = critical_path_method(a.pag.pag.graph, critical); });
  timed(graph, "near-critical paths", [&] {
    a.pag.paths = near_critical_paths(a.pag.pag.graph, a.pag.cpm, options.paths, critical, beside ? cores : 1);
    a.pag.distinct = near_critical_paths(a.pag.pag.graph, a.pag.cpm, distinct_query(options.paths, a.pag.cpm.length),
                                         critical, beside ? cores : 1);
    a.pag.distinct.successor = Successors();
  });
  // The MBM needs the CPM's length and the paths, not their per-vertex tables: freed first, so that
  // the MBM's lanes take their place instead of adding to them.
  a.pag.cpm.tails = ChainTails();
  a.pag.paths.successor = Successors();
  pop_step.get();
  if (!options.keep_graph) {
    a.pag.pag.calls = {};  // POP's alone: the MBM's lanes take their place
    return_free_memory();
  }
  // Its passes are independent: on every core once POP is done.
  timed(graph, "maximum benefit metric",
        [&] { a.pag.mbm = maximum_benefit(a.pag.pag.graph, a.pag.cpm, a.pag.paths, beside ? cores : 1); });
  if (!options.mbm_of.empty())
    timed(graph, "MBM of the zeroed call paths",
          [&] { a.pag.mbm_of = mbm_all_of(a.pag.pag.graph, a.pag.cpm, options.mbm_of, beside ? cores : 1); });
  if (!options.keep_graph) {  // what stays: seconds(), the anomalies, the variants
    a.pag.pag.graph = ActivityGraph();
    a.pag.pag.calls = {};
    a.pag.pag.first_vertex = {};
    return_free_memory();
  }
  a.timings.insert(a.timings.end(), graph.begin(), graph.begin() + 1);
  a.timings.insert(a.timings.end(), pop_timings.begin(), pop_timings.end());
  a.timings.insert(a.timings.end(), graph.begin() + 1, graph.end());
  return a;
}

namespace {

// A spread part's result into `into`; none (a cycle): process 0 says why in one line. Whether it is there.
template <typename Part>
bool adopt(std::optional<Part> result, Part& into, ProcessGroup& group, const char* warning) {
  if (result) {
    into = std::move(*result);
    return true;
  }
  if (group.process() == 0) spdlog::warn("{}", warning);
  return false;
}

}  // namespace

TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options, ProcessGroup& group) {
  if (!trace.share) return analyze_trace(trace, options);
  TraceAnalysis a;
  a.parts = options.parts;
  const double span = summary_over(trace, group).span();
  timed(a.timings, "the wait-path analysis (wait states, critical path, imbalance, delay costs)",
        [&] { a.wait_paths = analyze_wait_paths(trace, options.wait_paths, group); });
  timed(a.timings, "metric table", [&] { a.table = metric_table(a.wait_paths); });
  a.threads = thread_profile(trace, group);
  a.communication = communication_matrix(trace, group);
  if (a.parts.wait_estimate)
    timed(a.timings, "minimum-based wait estimate", [&] {
      const TraceBasedWaits trace_based = trace_based_waits(trace, a.wait_paths.waits);
      a.waits = estimate_waits(trace, &trace_based, group, span);
    });
  if (a.parts.pop) {
    PopAnalysisOptions pop;
    pop.pop = options.pop;
    pop.windows = resolve_windows(options.windows, span);
    std::optional<PopAnalysis> result;
    timed(a.timings, "POP factors and windows (ideal-network clock replay)",
          [&] { result = analyze_pop(trace, pop, group); });
    a.parts.pop = adopt(std::move(result), a.pop, group,
                        "POP over processes: the ideal network's dependencies form a cycle (events with equal "
                        "timestamps out of order), which only the whole trace's activity graph can break; POP is left "
                        "out (wisp analyze without mpirun computes it)");
  }
  if (a.parts.pag) {
    return_free_memory();  // what the steps before freed: the graph's share takes its place
    PagAnalysisOptions pag;
    pag.query = options.paths;
    pag.mbm_of = options.mbm_of;
    std::optional<PagAnalysis> result;
    timed(a.timings, "activity-graph analysis (critical path method, near-critical paths, MBM)",
          [&] { result = analyze_pag(trace, pag, group); });
    a.parts.pag = adopt(std::move(result), a.pag, group,
                        "activity graph over processes: its dependencies form a cycle (events with equal timestamps "
                        "out of order), which only the whole trace's graph can break; the near-critical paths and the "
                        "MBM are left out (wisp analyze without mpirun computes them)");
  }
  return a;
}

}  // namespace wisp
