// One-call POP analysis. See pop_analysis.hpp.
#include "wisp/analysis/pop_analysis.hpp"

#include "wisp/analysis/pag.hpp"

namespace wisp {

PopAnalysis analyze_pop(const Trace& trace, const PopAnalysisOptions& options, const Pag* pag) {
  const bool shared = pag && pag->ideal_variant != 0 && pag->ideal_eager_limit == options.pop.eager_limit;
  const PopTimeline timeline = shared ? pop_timeline(trace, *pag) : pop_timeline(trace, options.pop.eager_limit);
  PopAnalysis a;
  a.whole = pop_factors(timeline, options.pop);
  a.external_ideal = options.pop.ideal_runtime.has_value();
  if (a.external_ideal) a.ideal_source = options.pop.ideal_runtime_source;
  a.replay_ideal = timeline.ideal_runtime;
  a.window_options = options.windows;
  if (options.windows) a.windows = pop_windows(timeline, *options.windows);
  a.hybrid = hybrid_pop_factors(trace);
  return a;
}

}  // namespace wisp
