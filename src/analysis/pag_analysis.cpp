// One-call PAG analysis. See pag_analysis.hpp.
#include "wisp/analysis/pag_analysis.hpp"

namespace wisp {

PagAnalysis analyze_pag(const Trace& trace, const PagAnalysisOptions& options) {
  PagAnalysis a;
  a.pag = build_pag(trace, options.pag);
  a.cpm = critical_path_method(a.pag.graph);
  a.paths = near_critical_paths(a.pag.graph, a.cpm, options.query);
  a.mbm = maximum_benefit(a.pag.graph, a.cpm, a.paths);
  return a;
}

}  // namespace wisp
