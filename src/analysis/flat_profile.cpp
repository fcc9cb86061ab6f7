// Per-region flat profile. See flat_profile.hpp.
#include "wisp/analysis/flat_profile.hpp"

#include <algorithm>

#include "wisp/analysis/profile.hpp"

namespace wisp {

FlatProfile flat_profile(const Trace& t) {
  const Profile p = compute_profile(t);
  const auto& d = t.defs;
  std::vector<std::vector<double>> per_rank(d.regions.size(), std::vector<double>(t.rank_count(), 0.0));
  std::vector<std::uint64_t> visits(d.regions.size(), 0);
  for (CallpathId c = 0; c < d.callpaths.size(); ++c) {
    const RegionId region = d.callpaths[c].region;
    for (Rank r = 0; r < t.rank_count(); ++r) {
      per_rank[region][r] += p.time.at(slot_of(c), r);
      visits[region] += static_cast<std::uint64_t>(p.visits.at(slot_of(c), r));
    }
  }
  FlatProfile out;
  out.total = p.time.sum();
  for (RegionId g = 0; g < d.regions.size(); ++g) {
    if (!visits[g]) continue;
    RegionProfileRow row{g, visits[g], 0, 0, kNone};
    for (Rank r = 0; r < t.rank_count(); ++r) {
      row.time += per_rank[g][r];
      if (row.max_rank == kNone || per_rank[g][r] > row.max_time) row.max_time = per_rank[g][r], row.max_rank = r;
    }
    out.rows.push_back(row);
  }
  std::sort(out.rows.begin(), out.rows.end(), [&](const RegionProfileRow& a, const RegionProfileRow& b) {
    if (a.time != b.time) return a.time > b.time;
    return d.regions[a.region].name < d.regions[b.region].name;
  });
  return out;
}

}  // namespace wisp
