// The wait-path analysis in one call: profile, wait states and the paths that follow them (critical path with
// imbalance and performance-impact indicators, delay costs). A pure function of the trace (and
// options); the call index and synchronisation graph are built once and shared. Outside the
// analysis layer, run it through analyze_trace() (trace_analysis.hpp).
#pragma once

#include <optional>

#include "wisp/analysis/critical_path.hpp"
#include "wisp/analysis/delay.hpp"
#include "wisp/analysis/imbalance.hpp"
#include "wisp/analysis/metric_table.hpp"
#include "wisp/analysis/openmp_waits.hpp"
#include "wisp/analysis/partitions.hpp"
#include "wisp/analysis/profile.hpp"
#include "wisp/analysis/step_runner.hpp"
#include "wisp/analysis/time_tree.hpp"
#include "wisp/analysis/wait_states.hpp"

namespace wisp {

struct WaitPathOptions {
  std::optional<Partitions> partitions;  // user-given partitions; derived from the trace if empty
  DelayRules delay_rules = DelayRules::Scalasca;
  std::size_t release_round_bytes = kReleaseRoundBytes;  // spread: the delay replay's rounds (delay.hpp)
};

struct WaitPathAnalysis {
  Profile profile;
  TimeClasses time_classes;
  WaitStates waits;
  CriticalPath critical_path;
  Partitions partitions;
  ImbalanceIndicators imbalance;
  DelayCosts delays;
  OpenMpWaits openmp;  // hybrid traces only
};

// One analysis, whatever group it runs in (as Scalasca's replay): each process analyses its own
// ranks (a trace read with a ProcessGroup: Trace::share; all of them in a group of one) and
// exchanges what crosses to the others; every process ends with the results a group of one gives
// the whole trace, except the wait-state instances (and the graph they are found on), which stay
// those of its ranks.
WaitPathAnalysis analyze_wait_paths(const Trace& trace, const WaitPathOptions& options, ProcessGroup& group,
                                    StepRunner& run = one_after_another());
WaitPathAnalysis analyze_wait_paths(const Trace& trace, const WaitPathOptions& options = {});  // in a group of one

// Every metric of the analysis as tidy records (Scalasca names; see src/analysis/README.md, "Metrics", and
// metric_catalogue.hpp).
MetricTable metric_table(const WaitPathAnalysis& analysis);

}  // namespace wisp
