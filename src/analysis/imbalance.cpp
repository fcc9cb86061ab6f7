// Critical-path imbalance and performance impact. See imbalance.hpp for the formulas.
#include "wisp/analysis/imbalance.hpp"

#include <algorithm>

namespace wisp {

namespace {

// Sum of `per_slot` over every call path's subtree (slot 0, the program root, holds everything).
std::vector<double> inclusive(const Definitions& defs, std::vector<double> per_slot) {
  for (std::uint32_t s = static_cast<std::uint32_t>(per_slot.size()); s-- > 1;) {
    const CallpathId parent = defs.callpaths[callpath_of_slot(s)].parent;
    per_slot[slot_of(parent)] += per_slot[s];
  }
  return per_slot;
}

// Which partitions execute which call path slot.
std::vector<char> executed_in_partition(const Profile& profile, const Partitions& parts) {
  const std::uint32_t S = profile.visits.slots;
  std::vector<char> out(std::size_t(parts.names.size()) * S, 0);
  for (Rank r = 0; r < profile.visits.ranks; ++r)
    for (std::uint32_t s = 0; s < S; ++s)
      if (profile.visits.at(s, r) > 0) out[std::size_t(parts.of_rank[r]) * S + s] = 1;
  return out;
}

}  // namespace

ImbalanceIndicators compute_imbalance(const Trace& trace, const Profile& profile,
                                      const WaitStates& waits, const CriticalPath& path,
                                      const Partitions& partitions) {
  const CallpathMatrix& cp = path.profile;
  const std::uint32_t S = cp.slots, P = cp.ranks;
  ImbalanceIndicators out;
  for (CallpathMatrix* m : {&out.non_waiting, &out.critical_path_imbalance, &out.critical_path_activities,
                            &out.non_critical_path_activities, &out.critical_imbalance_impact,
                            &out.intra_partition_imbalance, &out.inter_partition_imbalance,
                            &out.performance_impact})
    *m = CallpathMatrix(S, P);

  // Non-waiting time, both clamped (per entry) and summed raw (Scalasca's ι uses the raw sums).
  std::vector<double> raw_non_waiting(S, 0.0), on_path(S, 0.0);
  for (Rank r = 0; r < P; ++r)
    for (std::uint32_t s = 0; s < S; ++s) {
      double w = 0;
      for (const CallpathMatrix& k : waits.seconds) w += k.at(s, r);
      const double t = profile.time.at(s, r);
      out.non_waiting.at(s, r) = std::max(t - w, 0.0);
      raw_non_waiting[s] += t - w;
      on_path[s] += cp.at(s, r);
    }

  // ι with inclusive ratios.
  const std::vector<double> cp_incl = inclusive(trace.defs, on_path);
  const std::vector<double> nw_incl = inclusive(trace.defs, raw_non_waiting);
  for (std::uint32_t s = 0; s < S; ++s) {
    if (!(cp_incl[s] > 0)) continue;
    const double ratio = std::max(cp_incl[s] - nw_incl[s] / P, 0.0) / cp_incl[s];
    for (Rank r = 0; r < P; ++r) out.critical_path_imbalance.at(s, r) = ratio * cp.at(s, r);
  }

  // Imbalance costs: local α_p δ_p(c), summed per call path, split intra / inter.
  const std::vector<char> executed = executed_in_partition(profile, partitions);
  std::vector<double> cost(S, 0.0), inter(S, 0.0);
  out.headroom.assign(P, 0.0);
  for (Rank r = 0; r < P; ++r) {
    double busy = 0, excess = 0;
    for (std::uint32_t s = 0; s < S; ++s) {
      busy += out.non_waiting.at(s, r);
      excess += std::max(on_path[s] - out.non_waiting.at(s, r), 0.0);
    }
    out.headroom[r] = path.length - busy;
    if (!(excess > 0)) continue;
    const double alpha = out.headroom[r] / excess;
    const char* in_partition = executed.data() + std::size_t(partitions.of_rank[r]) * S;
    for (std::uint32_t s = 0; s < S; ++s) {
      const double c = alpha * std::max(on_path[s] - out.non_waiting.at(s, r), 0.0);
      cost[s] += c;
      if (!in_partition[s]) inter[s] += c;
    }
  }

  for (std::uint32_t s = 0; s < S; ++s) {
    for (Rank r = 0; r < P; ++r) {
      const double l = out.non_waiting.at(s, r);
      if (on_path[s] > 0) {
        out.critical_path_activities.at(s, r) = std::min(on_path[s], l);
        const double share = cp.at(s, r) / on_path[s];
        if (cost[s] > 0) out.critical_imbalance_impact.at(s, r) = share * cost[s];
        if (inter[s] > 0) out.inter_partition_imbalance.at(s, r) = share * inter[s];
        out.intra_partition_imbalance.at(s, r) =
            out.critical_imbalance_impact.at(s, r) - out.inter_partition_imbalance.at(s, r);
      }
      out.non_critical_path_activities.at(s, r) = std::max(l - on_path[s], 0.0);
      out.performance_impact.at(s, r) = l + out.critical_imbalance_impact.at(s, r);
    }
  }
  return out;
}

}  // namespace wisp
