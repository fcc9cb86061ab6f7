// Hypotheses for `wisp suggest`: candidate what-if scenarios generated from the analyses of a
// measured trace, each with the indicator that proposed it and the gain that indicator predicts,
// so that simulating them ranks the ideas and shows how far each indicator over- or underestimates.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp {

// Ranked: a change a user could make; Bound: an upper bound (zeroing), listed apart; Combined:
// compatible ranked hypotheses together (the greedy combination).
enum class HypothesisRole { Ranked, Bound, Combined };
std::string to_string(HypothesisRole role);

// An indicator's prediction of the gain of a hypothesis.
struct Indicator {
  std::string name;             // catalogue metric ("critical_path_imbalance") or wisp's estimate
  std::optional<double> value;  // seconds, the gain it predicts; none when it gives no figure
};

struct Hypothesis {
  std::string name;                // file-name stem, short names: "rebalance-cg_solve"
  std::string title;               // short names: "rebalance cg_solve (per instance)"
  std::string subject;             // the full name of the region or call path it changes ("" if none)
  std::string short_subject;       // its display name ("cg_solve", "cg_solve/dot"; trace/short_names.hpp)
  std::vector<std::string> parts;  // a combination: the titles of its parts
  std::string reason;              // why it was generated
  Indicator indicator;             // what proposed it
  std::vector<Indicator> also;     // other indicators that proposed the same transforms
  HypothesisRole role = HypothesisRole::Ranked;
  std::vector<Transform> transforms;
  std::vector<std::string> touches;  // what it changes (call paths, "latency", "bandwidth", ...)
};

struct HypothesisOptions {
  std::size_t top = 3;          // call paths per indicator
  double move_step = 0.05;      // the move search: fractions estimate ± k·step ...
  int move_points = 2;          // ... for k = 1 .. move_points
  double min_share = 1e-3;      // indicator values below this share of the runtime are ignored
  double balance_below = 0.95;  // POP load balance under which the decomposition balance is proposed
};

struct Hypotheses {
  std::vector<Hypothesis> list;
  std::vector<std::string> skipped;  // kinds of hypotheses not generated, each with why (one line)
  std::string none_reason;           // why there is nothing to suggest, when `list` is empty
};

// The analyses generate_hypotheses() reads: the wait-path analysis, the PAG (MBM_all), POP (T_ideal).
TraceAnalysisOptions hypothesis_analysis_options();

// Candidates, deduplicated by their transforms (a second indicator goes to `also`): the
// decomposition balance (every call path's instances to the ranks' mean, mode `callpaths`) when POP
// load balance is below options.balance_below; rebalance the top call paths by critical_path_imbalance and by delay
// costs (delay_*, short- plus long-term), per instance and also in total where the two differ; `move` between MPMD
// partitions around the load-balancing fraction; zero the top call paths by mbm_all (bounds); the communication bounds
// (zero communication, bandwidth x2, latency /2); on hybrid traces, balance the threads of the top parallel regions.
Hypotheses generate_hypotheses(const Trace& trace, const TraceAnalysis& analysis,
                               const HypothesisOptions& options = {});

// Whether two hypotheses change different things (neither a bound nor a combination) and can be combined.
bool compatible(const Hypothesis& a, const Hypothesis& b);
// The changes of `parts` in one scenario; its indicator is the sum of their simulated gains (additivity).
Hypothesis combine(const std::vector<const Hypothesis*>& parts, const std::vector<double>& gains);

// The scenario of a hypothesis: `base`'s trace, platform, replay and analyses with its transforms.
Scenario hypothesis_scenario(const Scenario& base, const Hypothesis& h);

}  // namespace wisp
