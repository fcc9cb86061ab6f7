// Scenario transforms applied to a trace before replay: rebalance, scale, set, zero, move
// change the computation of selected visits (see selection.hpp); zero communication and
// platform changes are carried to the replay as options.
#pragma once

#include <string>
#include <vector>

#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/selection.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// What one transform did, for the report.
struct TransformEffect {
  std::string description;  // "rebalance work (per instance) on 32 ranks, 320 visits"
  std::size_t visits = 0;
  double before = 0;  // seconds of computation of the selected visits
  double after = 0;
  std::vector<CallpathId> callpaths;  // call paths of the selected visits, ascending
};

struct Transformed {
  Trace trace;
  bool zero_communication = false;
  PlatformChange platform;  // factors multiplied, last file and last absolute values win
  // The last placement transform's: where the scenario's ranks run (the identity's stay as they are).
  struct PlacementChange {
    Placement placement = Placement::Cyclic;
    std::filesystem::path hostfile;  // else placement over the platform's hosts
  };
  std::optional<PlacementChange> placement;
  std::vector<TransformEffect> effects;
};

// The new computation of each visit under `rebalance` (visits as select_visits gives them, `c`
// their computation): per instance, the k-th visits of all ranks get their mean; in total, every
// rank gets the mean total, spread over its visits in proportion to them.
std::vector<double> rebalance_instances(const std::vector<Visit>& visits, const std::vector<double>& c);
std::vector<double> rebalance_totals(const std::vector<Visit>& visits, const std::vector<double>& c);

// Applies the transforms in order. Throws wisp::Error naming the transform's place in the file.
Transformed apply_transforms(const Trace& trace, const std::vector<Transform>& transforms);

}  // namespace wisp
