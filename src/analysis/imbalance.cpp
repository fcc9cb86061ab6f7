// Critical-path imbalance and performance impact. See imbalance.hpp for the formulas.
#include "wisp/analysis/imbalance.hpp"

#include <algorithm>
#include <cmath>

namespace wisp {

namespace {

// Sum of `per_slot` over every call path's subtree (slot 0, the program root, holds everything).
// Call paths are created after their parents, so children have higher slots.
std::vector<double> inclusive(const Definitions& defs, std::vector<double> per_slot) {
  for (std::uint32_t s = static_cast<std::uint32_t>(per_slot.size()); s-- > 1;) {
    const CallpathId parent = defs.callpaths[callpath_of_slot(s)].parent;
    per_slot[slot_of(parent)] += per_slot[s];
  }
  return per_slot;
}

// Which partitions execute which call path slot: [partition * slots + slot].
std::vector<char> executed_in_partition(const Profile& profile, const Partitions& parts) {
  const std::uint32_t S = profile.visits.slots;
  std::vector<char> out(std::size_t(parts.names.size()) * S, 0);
  for (Rank r = 0; r < profile.visits.ranks; ++r)
    for (std::uint32_t s = 0; s < S; ++s)
      if (profile.visits.at(s, r) > 0) out[std::size_t(parts.of_rank[r]) * S + s] = 1;
  return out;
}

// L(c, p) per entry, and Σp (time - waits)(c, p) unclamped per call path (Scalasca's ι uses the
// raw sums).
std::vector<double> non_waiting_time(const Profile& profile, const WaitStates& waits, CallpathMatrix& out) {
  std::vector<double> raw(out.slots, 0.0);
  for (Rank r = 0; r < out.ranks; ++r)
    for (std::uint32_t s = 0; s < out.slots; ++s) {
      double w = 0;
      for (const CallpathMatrix& k : waits.seconds) w += k.at(s, r);
      const double t = profile.time.at(s, r);
      out.at(s, r) = std::max(t - w, 0.0);
      raw[s] += t - w;
    }
  return raw;
}

void critical_path_imbalance(const Definitions& defs, const CallpathMatrix& cp, const std::vector<double>& on_path,
                             const std::vector<double>& raw_non_waiting, CallpathMatrix& out) {
  const std::vector<double> cp_incl = inclusive(defs, on_path);
  const std::vector<double> nw_incl = inclusive(defs, raw_non_waiting);
  for (std::uint32_t s = 0; s < cp.slots; ++s) {
    if (!(cp_incl[s] > 0)) continue;
    const double ratio = std::max(cp_incl[s] - nw_incl[s] / cp.ranks, 0.0) / cp_incl[s];
    for (Rank r = 0; r < cp.ranks; ++r) out.at(s, r) = ratio * cp.at(s, r);
  }
}

// Σp α_p δ_p(c) per call path (all, and the inter-partition part); h_p per rank.
void imbalance_costs(const CriticalPath& path, const std::vector<double>& on_path, const Profile& profile,
                     const Partitions& partitions, ImbalanceIndicators& out, std::vector<double>& cost,
                     std::vector<double>& inter) {
  const std::uint32_t S = path.profile.slots, P = path.profile.ranks;
  const std::vector<char> executed = executed_in_partition(profile, partitions);
  cost.assign(S, 0.0);
  inter.assign(S, 0.0);
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
}

// Scalasca 2.6's inter-partition costs (CriticalPath.pattern): a rank's partition is the call
// paths it executes (L > 0). Its headroom on the others is their critical-path time, scaled by
// (length − Σ over its own call paths of max(L, d_cp)) / (critical-path time of the others); the
// headrooms summed over the ranks are the costs per call path. A rank that executes every call
// path of the critical path has no headroom (Scalasca divides by zero there, which makes every
// cost NaN and none booked: a deliberate deviation, src/analysis/README.md, "Deviations from Scalasca").
std::vector<double> implicit_partition_costs(const std::vector<double>& on_path, const CallpathMatrix& non_waiting) {
  const std::uint32_t S = non_waiting.slots;
  double length = 0;
  for (double x : on_path) length += x;
  std::vector<double> inter(S, 0.0), headroom(S);
  for (Rank r = 0; r < non_waiting.ranks; ++r) {
    double own = 0, others = 0;
    for (std::uint32_t s = 0; s < S; ++s) {
      const double l = non_waiting.at(s, r);
      headroom[s] = l > 0 ? 0.0 : on_path[s];
      if (l > 0) own += std::max(l, on_path[s]);
      others += headroom[s];
    }
    if (!(others > 0)) continue;
    const double factor = (length - own) / others;
    for (std::uint32_t s = 0; s < S; ++s) inter[s] += headroom[s] * factor;
  }
  return inter;
}

// Costs onto the ranks on the path by their share of d_cp(c); activity and impact metrics.
void distribute(const CallpathMatrix& cp, const std::vector<double>& on_path, const std::vector<double>& cost,
                const std::vector<double>& inter, ImbalanceIndicators& out) {
  for (std::uint32_t s = 0; s < cp.slots; ++s)
    for (Rank r = 0; r < cp.ranks; ++r) {
      const double l = out.non_waiting.at(s, r);
      if (on_path[s] > 0) {
        out.critical_path_activities.at(s, r) = std::min(on_path[s], l);
        const double share = cp.at(s, r) / on_path[s];
        const double impact = cost[s] > 0 ? share * cost[s] : 0.0;
        const double across = inter[s] > 0 ? share * inter[s] : 0.0;
        // intra = impact - inter (Scalasca's definition); rounding noise of an all-inter cost is 0
        const double intra = impact - across;
        out.critical_imbalance_impact.at(s, r) = impact;
        out.inter_partition_imbalance.at(s, r) = across;
        out.intra_partition_imbalance.at(s, r) = std::abs(intra) <= 1e-12 * std::abs(impact) ? 0.0 : intra;
      }
      out.non_critical_path_activities.at(s, r) = std::max(l - on_path[s], 0.0);
      out.performance_impact.at(s, r) = l + out.critical_imbalance_impact.at(s, r);
    }
}

}  // namespace

namespace {

std::vector<double> on_path_of(const CallpathMatrix& cp) {  // d_cp per call path
  std::vector<double> on_path(cp.slots, 0.0);
  for (std::uint32_t s = 0; s < cp.slots; ++s) on_path[s] = cp.total(s);
  return on_path;
}

}  // namespace

void performance_impact(const Profile& profile, const CriticalPath& path, const Partitions* partitions,
                        ImbalanceIndicators& out) {
  const CallpathMatrix& cp = path.profile;
  for (CallpathMatrix* m :
       {&out.critical_path_activities, &out.non_critical_path_activities, &out.critical_imbalance_impact,
        &out.intra_partition_imbalance, &out.inter_partition_imbalance, &out.performance_impact})
    *m = CallpathMatrix(cp.slots, cp.ranks);
  const std::vector<double> on_path = on_path_of(cp);
  std::vector<double> cost, inter;
  const Partitions one{{"all"}, std::vector<std::uint32_t>(cp.ranks, 0), "one"};
  imbalance_costs(path, on_path, profile, partitions ? *partitions : one, out, cost, inter);
  if (!partitions) inter = implicit_partition_costs(on_path, out.non_waiting);
  distribute(cp, on_path, cost, inter, out);
}

ImbalanceIndicators compute_imbalance(const Trace& trace, const Profile& profile, const WaitStates& waits,
                                      const CriticalPath& path, const Partitions* partitions) {
  const CallpathMatrix& cp = path.profile;
  ImbalanceIndicators out;
  out.non_waiting = CallpathMatrix(cp.slots, cp.ranks);
  out.critical_path_imbalance = CallpathMatrix(cp.slots, cp.ranks);
  const std::vector<double> raw = non_waiting_time(profile, waits, out.non_waiting);
  critical_path_imbalance(trace.defs, cp, on_path_of(cp), raw, out.critical_path_imbalance);
  performance_impact(profile, path, partitions, out);
  return out;
}

}  // namespace wisp
