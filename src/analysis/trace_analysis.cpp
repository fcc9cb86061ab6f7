// All analyses of `wisp analyze`. See trace_analysis.hpp.
#include "wisp/analysis/trace_analysis.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "wisp/analysis/metric_catalogue.hpp"

namespace wisp {

namespace {

// Runs `step`, records its wall time and logs it (debug level: `wisp -vv analyze`).
template <typename Step>
void timed(TraceAnalysis& a, const char* what, Step&& step) {
  const auto t0 = std::chrono::steady_clock::now();
  step();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  a.timings.emplace_back(what, seconds);
  spdlog::debug("analyze: {} took {:.3f} s", what, seconds);
}

WaitKind kind_of(WaitPattern p) {
  switch (p) {
    case WaitPattern::LateSender: return WaitKind::LateSender;
    case WaitPattern::WaitAtNxN: return WaitKind::WaitNxN;
    case WaitPattern::WaitAtBarrier: return WaitKind::WaitBarrier;
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
  timed(a, "analyzer I (wait states, critical path, imbalance, delay costs)",
        [&] { a.wait_paths = analyze_wait_paths(trace, options.wait_paths); });
  timed(a, "metric table", [&] { a.table = metric_table(a.wait_paths); });
  a.threads = thread_profile(trace);  // empty unless the trace has other threads
  // The estimate is compared with analyzer I's wait states, not with a second wait-state search.
  if (options.parts.wait_estimate) timed(a, "minimum-based wait estimate", [&] {
    const TraceBasedWaits trace_based = trace_based_waits(trace, a.wait_paths.waits);
    a.waits = estimate_waits(trace, &trace_based);
  });
  // The PAG serves the near-critical paths and the MBM through its CPM, and POP's ideal-network
  // clock replay through its second variant (rendezvous by the eager limit, not as observed), so
  // that only one graph is built (what analyze_pag() does, step by step here for the timings).
  PopAnalysisOptions pop;
  pop.pop = options.pop;
  pop.windows = resolve_windows(options.windows, trace.span());
  if (!options.parts.pag) {
    if (options.parts.pop)
      timed(a, "POP factors and windows (ideal-network clock replay)", [&] { a.pop = analyze_pop(trace, pop); });
    return a;
  }
  PagOptions pag_options;
  if (options.parts.pop) pag_options.ideal_eager_limit = options.pop.eager_limit;
  timed(a, "program activity graph", [&] { a.pag.pag = build_pag(trace, pag_options); });
  if (options.parts.pop)
    timed(a, "POP factors and windows (ideal-network clock replay)", [&] { a.pop = analyze_pop(trace, pop, &a.pag.pag); });
  timed(a, "critical path method", [&] { a.pag.cpm = critical_path_method(a.pag.pag.graph); });
  timed(a, "near-critical paths", [&] { a.pag.paths = near_critical_paths(a.pag.pag.graph, a.pag.cpm, options.paths); });
  timed(a, "maximum benefit metric", [&] { a.pag.mbm = maximum_benefit(a.pag.pag.graph, a.pag.cpm, a.pag.paths); });
  return a;
}

}  // namespace wisp
