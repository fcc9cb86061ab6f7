// Maximum Benefit Metric. See mbm.hpp.
#include "wisp/analysis/mbm.hpp"

#include <algorithm>
#include <set>

namespace wisp {

Ticks mbm_k(const NearCriticalPaths& paths, CallpathId callpath, std::size_t k) {
  const std::size_t n = std::min(k, paths.paths.size());
  if (n == 0) return 0;
  Ticks best = paths.paths[0].time_of(callpath);
  for (std::size_t j = 1; j < n; ++j) {
    const NearCriticalPath& p = paths.paths[j];
    best = std::min(best, p.time_of(callpath) + paths.critical_length - p.duration);
  }
  return best;
}

Ticks mbm_all(const ActivityGraph& g, const Cpm& cpm, CallpathId callpath) {
  std::vector<Ticks> earliest;
  const Ticks zeroed = longest_path(
      g, [callpath](const Activity& a) { return a.callpath == callpath ? 0 : a.duration; }, earliest);
  return cpm.length - zeroed;
}

std::vector<MbmRow> maximum_benefit(const ActivityGraph& g, const Cpm& cpm, const NearCriticalPaths& paths) {
  std::set<CallpathId> seen;
  for (const NearCriticalPath& p : paths.paths)
    for (const auto& [cp, d] : p.callpaths)
      if (d > 0) seen.insert(cp);
  std::vector<MbmRow> rows;
  for (CallpathId cp : seen) {
    MbmRow row;
    row.callpath = cp;
    row.critical_path = paths.paths.empty() ? 0 : paths.paths[0].time_of(cp);
    row.mbm_k = mbm_k(paths, cp, paths.paths.size());
    // 0 <= MBM_all <= MBM_k: no need to zero the call path when MBM_k is already 0.
    row.mbm_all = row.mbm_k > 0 ? mbm_all(g, cpm, cp) : 0;
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [](const MbmRow& a, const MbmRow& b) {
    if (a.critical_path != b.critical_path) return a.critical_path > b.critical_path;
    if (a.mbm_all != b.mbm_all) return a.mbm_all > b.mbm_all;
    return a.callpath < b.callpath;
  });
  return rows;
}

}  // namespace wisp
