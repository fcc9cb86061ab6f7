// POP factors of the whole run and, if a window length is given, per time window, in one call:
// what `wisp analyze --window/--min-events` runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wisp/analysis/pop_hybrid.hpp"
#include "wisp/analysis/pop_windows.hpp"

namespace wisp {

struct PopAnalysisOptions {
  PopOptions pop;                        // eager limit, external ideal runtime
  std::optional<WindowOptions> windows;  // --window S [--min-events N]
};

struct PopAnalysis {
  PopFactors whole;
  std::vector<PopWindow> windows;
  std::optional<WindowOptions> window_options;  // how the windows were made (none: no windows)
  bool external_ideal = false;                  // whole.ideal came from PopOptions::ideal_runtime
  std::string ideal_source = "clock replay";    // "clock replay" or PopOptions::ideal_runtime_source
  double replay_ideal = 0;                      // T_ideal of the clock replay [s], for comparing with an external one
  std::optional<HybridPopFactors> hybrid;       // traces with OpenMP threads
};

// With `pag` (built with PagOptions::ideal_eager_limit = options.pop.eager_limit and still holding
// that variant), the ideal-network clock replay runs on it; otherwise on a PAG of its own.
PopAnalysis analyze_pop(const Trace& trace, const PopAnalysisOptions& options = {}, const Pag* pag = nullptr);
// Collective over `group`, for a trace read spread over it (else analyze_pop(trace, options, pag)):
// the same analysis on every process, on `pag` (this process's part, build_pag(trace, options,
// group)) if it holds the ideal network, else on a part of its own; nullopt if the ideal network's
// dependencies form a cycle.
std::optional<PopAnalysis> analyze_pop(const Trace& trace, const PopAnalysisOptions& options, ProcessGroup& group,
                                       const Pag* pag = nullptr);

}  // namespace wisp
