// One-call POP analysis. See pop_analysis.hpp.
#include "wisp/analysis/pop_analysis.hpp"

#include "wisp/analysis/pag.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

// The factors of the run and of the windows from any timers (PopTimeline, PopSamples).
template <typename Timers>
void fill_factors(PopAnalysis& a, const Timers& timers, const std::vector<WindowRange>& ranges,
                  const PopAnalysisOptions& options) {
  a.whole = pop_factors(timers, options.pop);
  a.replay_ideal = timers.ideal_runtime;
  for (const WindowRange& w : ranges)
    a.windows.push_back(PopWindow{w.start, w.end, pop_factors(timers, w.start, w.end), w.min_events});
}

// Whether `pag` holds the ideal network of these options (as its second variant, or its only one).
bool holds_ideal(const Pag* pag, const PopAnalysisOptions& options) {
  return pag && pag->ideal_variant != 0 && pag->ideal_eager_limit == options.pop.eager_limit;
}

}  // namespace

// The timers are sampled at the run's and the windows' borders only (pop_samples), so that no
// timeline is kept, unless so many windows would take more than the timeline (48 bytes per MPI
// call): the same factors either way (those of pop_factors() and pop_windows() on pop_timeline()).
PopAnalysis analyze_pop(const Trace& trace, const PopAnalysisOptions& options, const Pag* pag) {
  const bool shared = holds_ideal(pag, options);
  Pag own;
  if (!shared) own = build_pag(trace, eager_limit_options(options.pop.eager_limit));
  const Pag& graph = shared ? *pag : own;
  const std::vector<WindowRange> ranges =
      options.windows ? window_ranges(trace, graph, *options.windows) : std::vector<WindowRange>{};
  std::vector<double> times{trace.start_time(), trace.end_time()};
  for (const WindowRange& w : ranges) {
    times.push_back(w.start);
    times.push_back(w.end);
  }
  std::uint64_t calls = 0;
  for (const auto& rank_calls : graph.calls) calls += rank_calls.size();
  PopAnalysis a;
  if (std::uint64_t{trace.rank_count()} * times.size() * 16 <= 48 * calls + (std::uint64_t{1} << 20))
    fill_factors(a, pop_samples(trace, graph, std::move(times)), ranges, options);
  else
    fill_factors(a, pop_timeline(trace, graph), ranges, options);
  a.external_ideal = options.pop.ideal_runtime.has_value();
  if (a.external_ideal) a.ideal_source = options.pop.ideal_runtime_source;
  a.window_options = options.windows;
  a.hybrid = hybrid_pop_factors(trace);
  return a;
}

std::optional<PopAnalysis> analyze_pop(const Trace& trace, const PopAnalysisOptions& options, ProcessGroup& group,
                                       const Pag* pag) {
  if (!trace.share) return analyze_pop(trace, options, pag);
  const TraceSummary whole = summary_over(trace, group);
  const std::vector<WindowRange> ranges =
      options.windows ? window_ranges(trace, whole, *options.windows, group) : std::vector<WindowRange>{};
  std::vector<double> times{whole.start_time(), whole.end_time()};
  for (const WindowRange& w : ranges) {
    times.push_back(w.start);
    times.push_back(w.end);
  }
  Pag own;
  if (!holds_ideal(pag, options)) own = build_pag(trace, eager_limit_options(options.pop.eager_limit), group);
  const std::optional<PopSamples> samples =
      pop_samples(trace, holds_ideal(pag, options) ? *pag : own, std::move(times), group);
  if (!samples) return std::nullopt;
  PopAnalysis a;
  fill_factors(a, *samples, ranges, options);
  a.external_ideal = options.pop.ideal_runtime.has_value();
  if (a.external_ideal) a.ideal_source = options.pop.ideal_runtime_source;
  a.window_options = options.windows;
  a.hybrid = hybrid_pop_factors(trace, whole, group);
  return a;
}

}  // namespace wisp
