// Critical-path imbalance indicator and performance-impact indicators (paper 000 §II-C, §II-D)
// from the critical-path profile and the per-rank profile without waiting time.
//
//   non-waiting time  L(c, p) = max(time(c, p) - waiting time(c, p), 0)
//   critical_path_imbalance: Scalasca's form of ι: for call path c, with inclusive values over
//     c's subtree, ratio(c) = max(CP(c) - Σp L(c, p) / P, 0) / CP(c); value(c, p) = ratio(c) ·
//     critical_path(c, p). For a leaf call path this is the paper's ι = max(d_cp - avg, 0).
//   imbalance costs: per rank p the headroom h_p = critical-path length - Σc L(c, p), the excess
//     δ_p(c) = max(d_cp(c) - L(c, p), 0), the scaling α_p = h_p / Σc δ_p(c); the local cost
//     α_p δ_p(c) is inter-partition if no rank of p's partition executes c, intra otherwise
//     (paper 000 §II-D, with user-given partitions). Without given partitions, inter-partition
//     costs follow Scalasca 2.6: each rank is its own partition of the call paths it executes,
//     and its headroom on the call paths it does not execute is their critical-path time scaled
//     to length − Σ_own max(L, d_cp) (imbalance.cpp); intra = total − inter.
//     The costs summed over p are mapped onto the ranks on the critical path in proportion to
//     their share of d_cp(c) (as Scalasca does); only positive totals are reported.
//   performance_impact(c, p) = L(c, p) + critical_imbalance_impact(c, p)
#pragma once

#include <vector>

#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/analysis/critical_path.hpp"
#include "wisp/analysis/partitions.hpp"
#include "wisp/analysis/profile.hpp"
#include "wisp/analysis/wait_states.hpp"

namespace wisp {

struct ImbalanceIndicators {
  CallpathMatrix non_waiting;                   // L(c, p)
  CallpathMatrix critical_path_imbalance;       // ι per (call path, rank on the path)
  CallpathMatrix critical_path_activities;      // min(d_cp(c), L(c, p)) where d_cp(c) > 0
  CallpathMatrix non_critical_path_activities;  // max(L(c, p) - d_cp(c), 0)
  CallpathMatrix critical_imbalance_impact;     // intra + inter
  CallpathMatrix intra_partition_imbalance;
  CallpathMatrix inter_partition_imbalance;
  CallpathMatrix performance_impact;
  std::vector<double> headroom;  // h_p per rank
};

// `partitions`: user-given (the paper's rule), or nullptr (Scalasca's implicit partitions).
ImbalanceIndicators compute_imbalance(const Trace& trace, const Profile& profile, const WaitStates& waits,
                                      const CriticalPath& path, const Partitions* partitions);

// The performance-impact family alone (activities, imbalance impacts, performance impact) from
// `out.non_waiting` as given: what compute_imbalance does after L. Lets a test feed Scalasca's own
// non-waiting time and compare the formulas alone.
void performance_impact(const Profile& profile, const CriticalPath& path, const Partitions* partitions,
                        ImbalanceIndicators& out);

}  // namespace wisp
