// What `wisp suggest` found: each hypothesis as the scenario it ran and its simulated gain, ranked,
// with how far to trust the identity replay they share. The driver makes it (driver/suggest_run.hpp);
// the report renders it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/replay/trust.hpp"
#include "wisp/scenario/hypotheses.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp {

struct Suggestion {
  Hypothesis hypothesis;
  Scenario scenario;  // as it ran: parsed back from `yaml`
  std::string yaml;   // the scenario file (hypotheses/NN-name.yaml): as simulated, then with the findings as comments
  std::string file;   // its path relative to the output directory
  SweepRow run;       // runtimes, or why the candidate failed (its error)
  bool failed() const { return !run.error.empty(); }
  // A gain within noise: at most noise_share of the identity runtime, or a gain interval wholly <= 0.
  bool measurable() const;
  static constexpr double noise_share = 1e-3;
  // The indicator's prediction minus the simulated gain (> 0: it overestimates), and their ratio
  // (none for gains under 0.01 % of the run, whose ratio says nothing).
  std::optional<double> overestimate() const;
  std::optional<double> ratio() const;
};

struct SuggestResult {
  std::string trace;                  // where the trace came from (path or generate command)
  std::string platform;               // the identity platform, one line
  std::string costs;                  // "trace-anchored" or "model only"
  double measured = 0;                // runtime of the measured trace [s]
  double identity = 0;                // simulated runtime of the unmodified trace [s]
  std::vector<std::string> warnings;  // how far to trust the identity, as `wisp run` gives them
  std::vector<std::string> skipped;   // kinds of hypotheses not generated, and why
  // Ranked by gain (the combination among them), then those of no measurable gain, the bounds,
  // and the failed ones.
  std::vector<Suggestion> suggestions;
  std::string none_reason;                              // why there is nothing to suggest (no suggestions)
  std::vector<std::pair<std::string, double>> timings;  // wall seconds per step
  double identity_error() const { return wisp::identity_error(measured, identity); }
};

}  // namespace wisp
