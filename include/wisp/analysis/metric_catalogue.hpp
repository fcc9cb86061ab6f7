// Every metric wisp computes, declared once as data in the spirit of Scalasca's .pattern files:
// unique name, parent, unit, description (Scalasca's verbatim where it has the metric) and the
// analysis that yields it. Code, reports and `wisp analyze --list-metrics` read names from here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/analysis/wait_states.hpp"

namespace wisp {

// The analysis that yields a metric: the profile always runs, the others are requested by their
// key in scenario files (`analyses:`) and `wisp analyze`.
enum class AnalysisKind : std::uint8_t { Profile, WaitStates, CriticalPath, Delays, Pag, WaitEstimate, Pop };
std::string_view analysis_key(AnalysisKind a);  // "profile", "wait_states", "critical_path", ...
// The requestable analysis keys (every kind but the profile), in AnalysisKind order.
const std::vector<std::string>& analysis_keys();

// What a metric of one wait kind measures (the wait-state and delay metrics come one per kind).
enum class WaitRole : std::uint8_t {
  None,
  Time,
  Count,
  DirectWait,
  IndirectWait,
  ShortTermDelay,
  LongTermDelay,
  DelayAggregate,  // short- plus long-term delay costs (Scalasca's *_aggregate)
};

struct MetricInfo {
  std::string_view name;     // Scalasca's unique name ("mpi_latesender")
  std::string_view display;  // its display name ("MPI Late Sender"; the NAME of Scalasca's .pattern)
  std::string_view parent;   // nearest ancestor in Scalasca's hierarchy that wisp has; "" for a root
  std::string_view unit;     // "sec", "occ" (occurrences), "bytes" or "ratio"
  AnalysisKind analysis = AnalysisKind::Profile;
  bool compared = false;  // a what-if run compares it call path by call path
  std::string_view description;
  WaitRole role = WaitRole::None;        // for the metrics of one wait kind:
  WaitKind kind = WaitKind::LateSender;  // that kind
  bool sum = false;  // the sum of its children (Scalasca's POSTDERIVED sums of scout.spec): sum_of_children()
};

// A metric whose value is the sum of its children's, as Scalasca's remap spec derives it.
constexpr MetricInfo sum_of_children(MetricInfo m) {
  m.sum = true;
  return m;
}

std::span<const MetricInfo> metric_catalogue();
// Scalasca's display name of a metric ("MPI Late Sender"; Cube's disp_name); the name itself if none.
std::string_view display_name(std::string_view metric);
const MetricInfo* find_metric(std::string_view name);  // nullptr if unknown
std::vector<const MetricInfo*> metrics_of(AnalysisKind a);
// The metric of a wait kind in a role; "" if there is none (no delay metrics for Early Scan).
std::string_view wait_metric(WaitRole role, WaitKind kind);
// The catalogue's sums (MetricInfo::sum), deepest first: each after every sum below it.
std::vector<const MetricInfo*> sums_deepest_first();
// Scalasca's long description and diagnosis of a metric (DESCR and DIAGNOSIS of its .pattern entry,
// plain text, paragraphs separated by blank lines); both empty for metrics Scalasca has no pattern
// for (wisp's own, and the time tree's derived ones, whose description is the catalogue's).
struct MetricTexts {
  std::string_view description, diagnosis;
};
MetricTexts metric_texts(std::string_view metric);

// Whether a what-if run compares `metric` call path by call path when `requested` analysis keys
// were asked for: compared metrics of the profile always, the others when their analysis is.
bool compared_by_callpath(std::string_view metric, const std::vector<std::string>& requested);

// Names the code uses by themselves (the wait-kind metrics: wait_metric()).
namespace metric {
inline constexpr std::string_view kTime = "time";
inline constexpr std::string_view kVisits = "visits";
inline constexpr std::string_view kCriticalPath = "critical_path";
inline constexpr std::string_view kCriticalPathImbalance = "critical_path_imbalance";
inline constexpr std::string_view kPerformanceImpact = "performance_impact";
inline constexpr std::string_view kCriticalPathActivities = "critical_path_activities";
inline constexpr std::string_view kNonCriticalPathActivities = "non_critical_path_activities";
inline constexpr std::string_view kCriticalImbalanceImpact = "critical_imbalance_impact";
inline constexpr std::string_view kIntraPartitionImbalance = "intra_partition_imbalance";
inline constexpr std::string_view kInterPartitionImbalance = "inter_partition_imbalance";
inline constexpr std::string_view kOmpIbarrierWait = "omp_ibarrier_wait";
inline constexpr std::string_view kOmpEbarrierWait = "omp_ebarrier_wait";
inline constexpr std::string_view kOmpIdleThreads = "omp_idle_threads";
inline constexpr std::string_view kBarrierCompletion = "mpi_barrier_completion";
inline constexpr std::string_view kNxnCompletion = "mpi_nxn_completion";
inline constexpr std::string_view kInitCompletion = "mpi_init_completion";
inline constexpr std::string_view kDelay = "delay";
inline constexpr std::string_view kDelayMpi = "delay_mpi";
inline constexpr std::string_view kDelayP2p = "delay_p2p";
inline constexpr std::string_view kDelayCollective = "delay_collective";
}  // namespace metric

}  // namespace wisp
