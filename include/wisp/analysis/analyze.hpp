// All of Analyzer I in one call: profile, wait states, critical path with imbalance and
// performance-impact indicators, delay costs. A pure function of the trace (and options); the
// intermediate structures (call index, synchronisation graph) are built once and shared.
#pragma once

#include <optional>

#include "wisp/analysis/critical_path.hpp"
#include "wisp/analysis/delay.hpp"
#include "wisp/analysis/imbalance.hpp"
#include "wisp/analysis/metric_table.hpp"
#include "wisp/analysis/partitions.hpp"
#include "wisp/analysis/profile.hpp"
#include "wisp/analysis/wait_states.hpp"

namespace wisp {

struct AnalyzeOptions {
  std::optional<Partitions> partitions;  // user-given partitions; derived from the trace if empty
  DelayRules delay_rules = DelayRules::Scalasca;
};

struct Analysis {
  Profile profile;
  WaitStates waits;
  CriticalPath critical_path;
  Partitions partitions;
  ImbalanceIndicators imbalance;
  DelayCosts delays;
};

Analysis analyze(const Trace& trace, const AnalyzeOptions& options = {});

// Every metric of the analysis as tidy records (Scalasca names; see README.md, "Metrics").
MetricTable metric_table(const Analysis& analysis);

}  // namespace wisp
