// The Maximum Benefit Metric (paper 001 §5): how much the run could gain at most by optimising
// one call path i. MBM_k(i) = min over the k longest paths j of (d(i)_j + d_cp - d_j);
// MBM_all(i) = d_cp - d_cp(i zeroed), by zeroing every activity of i and recomputing the longest
// path. MBM_all(i) equals the minimum over all paths, so MBM_all(i) <= MBM_k(i) <= d(i)_1.
#pragma once

#include <functional>
#include <vector>

#include "wisp/analysis/near_critical.hpp"

namespace wisp {

struct MbmRow {
  CallpathId callpath = kNone;
  Ticks critical_path = 0;  // d(i)_1: time of i on the critical path
  Ticks mbm_k = 0;
  Ticks mbm_all = 0;
};

// MBM_k(i) over the first `k` of `paths` (all of them if k exceeds their number).
Ticks mbm_k(const NearCriticalPaths& paths, CallpathId callpath, std::size_t k);

// MBM_all of each of `callpaths`, in their order: one pass over the graph per four, shared out among
// `threads` (same result).
std::vector<Ticks> mbm_all_of(const ActivityGraph& g, const Cpm& cpm, const std::vector<CallpathId>& callpaths,
                              unsigned threads = 1);
// One row per call path with time on any of the paths, sorted by critical-path time, then MBM_all
// (both descending), then call path id. The passes over the graph (four call paths each) are
// independent: with threads > 1 they are shared out among that many threads (same result).
std::vector<MbmRow> maximum_benefit(const ActivityGraph& g, const Cpm& cpm, const NearCriticalPaths& paths,
                                    unsigned threads = 1);
// The same over a graph spread over processes (Pag::spread), collective over `group`: the whole
// graph's values on every process, from a ghost sweep (four call paths each). A whole graph: the
// functions above, on `threads`.
std::vector<Ticks> mbm_all_of(const Pag& pag, const Cpm& cpm, const std::vector<CallpathId>& callpaths,
                              ProcessGroup& group, unsigned threads = 1);
std::vector<MbmRow> maximum_benefit(const Pag& pag, const Cpm& cpm, const NearCriticalPaths& paths, ProcessGroup& group,
                                    unsigned threads = 1);
// Its rows from the paths, with MBM_all of the call paths that need it from `mbm_all_of` (the
// graph's passes in one process, or spread over processes).
std::vector<MbmRow> benefit_rows(const NearCriticalPaths& paths,
                                 const std::function<std::vector<Ticks>(const std::vector<CallpathId>&)>& mbm_all_of);

}  // namespace wisp
