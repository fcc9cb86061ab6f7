// Everything the activity-graph analysis derives from the program activity graph, in one call: the PAG, its CPM,
// the near-critical paths of a query and the MBM rows. What `wisp analyze --k/--nc` runs.
#pragma once

#include <vector>

#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/pag.hpp"

namespace wisp {

struct PagAnalysisOptions {
  NearCriticalQuery query;  // --k, --nc
  PagOptions pag;
};

struct PagAnalysis {
  Pag pag;
  Cpm cpm;
  NearCriticalPaths paths;
  std::vector<MbmRow> mbm;
};

PagAnalysis analyze_pag(const Trace& trace, const PagAnalysisOptions& options = {});

}  // namespace wisp
