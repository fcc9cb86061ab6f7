// One-call POP analysis. See pop_analysis.hpp.
#include "wisp/analysis/pop_analysis.hpp"

#include "wisp/analysis/pag.hpp"

namespace wisp {

// The timers are sampled at the run's and the windows' borders only (pop_samples), so that no
// timeline is kept: its factors are those of pop_factors() and pop_windows() on pop_timeline().
PopAnalysis analyze_pop(const Trace& trace, const PopAnalysisOptions& options, const Pag* pag) {
  const bool shared = pag && pag->ideal_variant != 0 && pag->ideal_eager_limit == options.pop.eager_limit;
  Pag own;
  if (!shared) own = build_pag(trace, PagOptions{RendezvousRule::EagerLimit, options.pop.eager_limit});
  const Pag& graph = shared ? *pag : own;
  const std::vector<WindowRange> ranges =
      options.windows ? window_ranges(trace, graph, *options.windows) : std::vector<WindowRange>{};
  std::vector<double> times{trace.start_time(), trace.end_time()};
  for (const WindowRange& w : ranges) {
    times.push_back(w.start);
    times.push_back(w.end);
  }
  const PopSamples samples = pop_samples(trace, graph, std::move(times));
  PopAnalysis a;
  a.whole = pop_factors(samples, options.pop);
  a.external_ideal = options.pop.ideal_runtime.has_value();
  if (a.external_ideal) a.ideal_source = options.pop.ideal_runtime_source;
  a.replay_ideal = samples.ideal_runtime;
  a.window_options = options.windows;
  for (const WindowRange& w : ranges)
    a.windows.push_back(PopWindow{w.start, w.end, pop_factors(samples, w.start, w.end), w.min_events});
  a.hybrid = hybrid_pop_factors(trace);
  return a;
}

}  // namespace wisp
