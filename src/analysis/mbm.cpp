// Maximum Benefit Metric. See mbm.hpp.
#include "wisp/analysis/mbm.hpp"

#include "wisp/analysis/chain_sweep.hpp"

#include <algorithm>
#include <array>
#include <future>
#include <span>
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
  std::vector<Ticks> stored;
  Ticks zeroed = 0;
  chain_sweep(
      g, kFirstVariant, stored,
      [callpath](Ticks& f, Ticks e, const Activity& a) { f = std::max(f, e + (a.callpath == callpath ? 0 : a.duration)); },
      [&](std::uint32_t, Ticks e) { zeroed = std::max(zeroed, e); });
  return cpm.length - zeroed;
}

namespace {

// MBM_all of up to kLanes call paths in one pass over the graph: lane j zeroes callpaths[j].
// One pass reads every activity once for all lanes, which is what the passes cost; memory
// kLanes · 8 bytes per vertex with explicit incoming activities (chain_sweep.hpp), in `stored`,
// which the passes share. All kLanes lanes are computed (unused ones repeat the first call path),
// so that the inner loops have a fixed length.
constexpr std::size_t kLanes = 4;
using Lanes = std::array<Ticks, kLanes>;

void mbm_all_lanes(const ActivityGraph& g, const Cpm& cpm, std::span<const CallpathId> callpaths,
                   std::vector<Lanes>& stored, std::span<Ticks> out) {
  std::array<CallpathId, kLanes> zeroed;
  for (std::size_t j = 0; j < kLanes; ++j) zeroed[j] = callpaths[j < callpaths.size() ? j : 0];
  Lanes length{};
  chain_sweep(
      g, kFirstVariant, stored,
      [&](Lanes& f, const Lanes& e, const Activity& act) {
        for (std::size_t j = 0; j < kLanes; ++j)
          f[j] = std::max(f[j], e[j] + (act.callpath == zeroed[j] ? 0 : act.duration));
      },
      [&](std::uint32_t, const Lanes& e) {
        for (std::size_t j = 0; j < kLanes; ++j) length[j] = std::max(length[j], e[j]);
      });
  for (std::size_t j = 0; j < callpaths.size(); ++j) out[j] = cpm.length - length[j];
}

}  // namespace

std::vector<MbmRow> maximum_benefit(const ActivityGraph& g, const Cpm& cpm, const NearCriticalPaths& paths,
                                    unsigned threads) {
  std::set<CallpathId> seen;
  for (const NearCriticalPath& p : paths.paths)
    for (const auto& [cp, d] : p.callpaths)
      if (d > 0) seen.insert(cp);
  std::vector<MbmRow> rows;
  std::vector<CallpathId> to_zero;  // 0 <= MBM_all <= MBM_k: only those with MBM_k > 0
  for (CallpathId cp : seen) {
    MbmRow row;
    row.callpath = cp;
    row.critical_path = paths.paths.empty() ? 0 : paths.paths[0].time_of(cp);
    row.mbm_k = mbm_k(paths, cp, paths.paths.size());
    if (row.mbm_k > 0) to_zero.push_back(cp);
    rows.push_back(row);
  }
  std::vector<Ticks> all(to_zero.size());
  const std::size_t passes = (to_zero.size() + kLanes - 1) / kLanes;
  // Thread t takes passes t, t + workers, ...; each writes its own part of `all`.
  const auto work = [&](std::size_t t, std::size_t workers) {
    std::vector<Lanes> stored;
    for (std::size_t p = t; p < passes; p += workers) {
      const std::size_t i = p * kLanes, n = std::min(kLanes, to_zero.size() - i);
      mbm_all_lanes(g, cpm, std::span(to_zero).subspan(i, n), stored, std::span(all).subspan(i, n));
    }
  };
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(threads, passes));
  std::vector<std::future<void>> helpers;
  for (std::size_t t = 1; t < workers; ++t) helpers.push_back(std::async(std::launch::async, work, t, workers));
  work(0, workers);
  for (auto& h : helpers) h.get();
  for (MbmRow& row : rows) {
    const auto it = std::find(to_zero.begin(), to_zero.end(), row.callpath);
    if (it != to_zero.end()) row.mbm_all = all[static_cast<std::size_t>(it - to_zero.begin())];
  }
  std::sort(rows.begin(), rows.end(), [](const MbmRow& a, const MbmRow& b) {
    if (a.critical_path != b.critical_path) return a.critical_path > b.critical_path;
    if (a.mbm_all != b.mbm_all) return a.mbm_all > b.mbm_all;
    return a.callpath < b.callpath;
  });
  return rows;
}

}  // namespace wisp
