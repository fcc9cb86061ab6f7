// All analyses of `wisp analyze`. See trace_analysis.hpp.
#include "wisp/analysis/trace_analysis.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

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

namespace {

// One graph for the activity-graph analysis and POP: its second variant is POP's ideal network.
PagOptions pag_options(const TraceAnalysisOptions& options) {
  PagOptions o;
  o.vertex_times = false;
  if (options.parts.pop) o.ideal_eager_limit = options.pop.eager_limit;
  return o;
}

PopAnalysisOptions pop_options(const TraceAnalysisOptions& options, double span) {
  PopAnalysisOptions pop;
  pop.pop = options.pop;
  pop.windows = resolve_windows(options.windows, span);
  return pop;
}

// The activity-graph analysis and POP, on a.pag's graph once built (the whole trace's, or this
// process's part of it: the same steps, collective over `group`); POP alone without it.
void analyze_graph(const Trace& trace, const TraceAnalysisOptions& options, const PopAnalysisOptions& pop,
                   ProcessGroup& group, StepRunner& run, TraceAnalysis& a) {
  const AnalysisParts& parts = options.parts;
  const auto pop_step = [&](const Pag* pag) {
    if (!parts.pop) return;
    run.step("POP factors and windows (ideal-network clock replay)", [&] {
      a.pop = analyze_pop(trace, pop, group, pag);
      if (!a.pop && group.process() == 0)
        spdlog::warn(
            "POP over processes: the ideal network's dependencies form a cycle (events with equal timestamps out of "
            "order), which only the whole trace's activity graph can break; POP is left out (wisp analyze without "
            "mpirun computes it)");
    });
  };
  if (!a.pag) return pop_step(nullptr);
  PagAnalysis& g = *a.pag;
  // POP's clock replay reads only the PAG and keeps a few values per rank: beside the CPM and the
  // near-critical paths, which read only the PAG too (over processes one after another: the steps'
  // exchanges must not interleave).
  const std::function<void()> pop_done =
      g.pag.spread ? (pop_step(&g.pag), std::function<void()>([] {})) : run.beside([&] { pop_step(&g.pag); });
  PagAnalysisOptions steps;
  steps.query = options.paths;
  steps.mbm_of = options.mbm_of;
  const bool acyclic = analyze_built_pag(g, steps, group, run, [&] {
    pop_done();
    g.pag.calls = {};  // POP's alone
  });
  if (acyclic) return;
  pop_done();
  if (g.pag.spread && group.process() == 0)
    spdlog::warn(
        "activity graph over processes: its dependencies form a cycle (events with equal timestamps out of order), "
        "which only the whole trace's graph can break; the near-critical paths and the MBM are left out (wisp "
        "analyze without mpirun computes them)");
  a.pag.reset();
}

}  // namespace

TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options, StepRunner& run) {
  TraceAnalysis a;
  const AnalysisParts& parts = options.parts;
  // The wait-path analysis and the PAG read only the trace: they may be built side by side.
  const std::function<void()> wait_paths_done = run.beside([&] {
    run.step("the wait-path analysis (wait states, critical path, imbalance, delay costs)",
             [&] { a.wait_paths = analyze_wait_paths(trace, options.wait_paths); });
    run.step("metric table", [&] { a.table = metric_table(a.wait_paths); });
    a.threads = thread_profile(trace);  // empty unless the trace has other threads
    a.communication = communication_matrix(trace);
    // The estimate is compared with the wait-path analysis's wait states, not with a second wait-state search.
    if (parts.wait_estimate)
      run.step("minimum-based wait estimate", [&] {
        const TraceBasedWaits trace_based = trace_based_waits(trace, a.wait_paths.waits);
        a.waits = estimate_waits(trace, &trace_based);
      });
  });
  PopAnalysisOptions pop = pop_options(options, trace.span());
  if (parts.pag)
    run.step("program activity graph", [&] { a.pag.emplace().pag = build_pag(trace, pag_options(options)); });
  wait_paths_done();
  run.freed();  // what the build and the wait-path analysis freed: the next steps' tables take its place
  SoloProcess alone;
  analyze_graph(trace, options, pop, alone, run, a);
  return a;
}

TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options, ProcessGroup& group,
                            StepRunner& run) {
  if (!trace.share || group.processes() == 1) return analyze_trace(trace, options, run);  // the whole trace
  TraceAnalysis a;
  const AnalysisParts& parts = options.parts;
  const double span = summary_over(trace, group).span();
  run.step("the wait-path analysis (wait states, critical path, imbalance, delay costs)",
           [&] { a.wait_paths = analyze_wait_paths(trace, options.wait_paths, group, run); });
  run.step("metric table", [&] { a.table = metric_table(a.wait_paths); });
  a.threads = thread_profile(trace, group);
  a.communication = communication_matrix(trace, group);
  if (parts.wait_estimate)
    run.step("minimum-based wait estimate", [&] {
      const TraceBasedWaits trace_based = trace_based_waits(trace, a.wait_paths.waits);
      a.waits = estimate_waits(trace, &trace_based, group, span);
    });
  if (parts.pag) {
    run.freed();  // what the steps before freed: the graph's part takes its place
    run.step("program activity graph", [&] { a.pag.emplace().pag = build_pag(trace, pag_options(options), group); });
  }
  analyze_graph(trace, options, pop_options(options, span), group, run, a);
  return a;
}

}  // namespace wisp
