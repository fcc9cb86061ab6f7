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
  NearCriticalPaths paths;     // paper 001's k paths (the MBM's)
  NearCriticalPaths distinct;  // the k most critical distinct ones: detours shorter than kDistinctDetour
                               // of d_cp are variants (counted); without their successor table
  std::vector<MbmRow> mbm;
};
// The detour below which two near-critical paths are one (a share of the critical path's length).
inline constexpr double kDistinctDetour = 1e-3;
// The query of the distinct paths for a critical path of `length` ticks.
NearCriticalQuery distinct_query(NearCriticalQuery query, Ticks length);

PagAnalysis analyze_pag(const Trace& trace, const PagAnalysisOptions& options = {});

}  // namespace wisp
