// One-call PAG analysis. See pag_analysis.hpp.
#include "wisp/analysis/pag_analysis.hpp"

#include <algorithm>

namespace wisp {

NearCriticalQuery distinct_query(NearCriticalQuery q, Ticks length) {
  q.min_detour = std::max<Ticks>(1, static_cast<Ticks>(static_cast<double>(length) * kDistinctDetour));
  return q;
}

PagAnalysis analyze_pag(const Trace& trace, const PagAnalysisOptions& options) {
  PagAnalysis a;
  a.pag = build_pag(trace, options.pag);
  a.cpm = critical_path_method(a.pag.graph);
  a.paths = near_critical_paths(a.pag.graph, a.cpm, options.query);
  a.distinct = near_critical_paths(a.pag.graph, a.cpm, distinct_query(options.query, a.cpm.length));
  a.distinct.successor = Successors();
  a.mbm = maximum_benefit(a.pag.graph, a.cpm, a.paths);
  return a;
}

}  // namespace wisp
