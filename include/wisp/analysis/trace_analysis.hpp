// Everything `wisp analyze` computes, in one call: the wait-path analysis (wait states, critical path,
// imbalance, delay costs) and the activity-graph analysis (program activity graph with near-critical paths and
// MBM, the minimum-based wait estimate set against the wait-path analysis's wait states, POP factors of the
// whole run and over time windows). Each shared structure is built once and handed on. The one
// entry point for a full analysis outside the analysis layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/analysis/comm_matrix.hpp"
#include "wisp/analysis/pag_analysis.hpp"
#include "wisp/analysis/pop_analysis.hpp"
#include "wisp/analysis/thread_profile.hpp"
#include "wisp/analysis/wait_estimate.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"

namespace wisp {

// POP windows as `wisp analyze` chooses them (see src/cli/README.md, `wisp analyze`):
//   neither given          adaptive: base windows of 1/100 of the run, merged until every rank
//                          has at least 3 MPI events in each;
//   --min-events N         adaptive with N;
//   --window S             fixed windows of S seconds;
//   --window S --min-events N   windows of S merged until every rank has N events.
struct WindowChoice {
  std::optional<double> length;             // --window [s]
  std::optional<std::uint32_t> min_events;  // --min-events
  static constexpr std::uint32_t kDefaultBaseWindows = 100;
  static constexpr std::uint32_t kDefaultMinEvents = 3;
};
// The windows of a run of `elapsed` seconds; nullopt if the run has no duration.
std::optional<WindowOptions> resolve_windows(const WindowChoice& choice, double elapsed);

// Which parts to compute beyond the wait-path analysis (which always runs: the others build on it).
struct AnalysisParts {
  bool pag = true;            // program activity graph, near-critical paths, MBM
  bool wait_estimate = true;  // minimum-based wait estimate
  bool pop = true;            // POP factors and windows
};
// The parts for the requested analysis keys (metric_catalogue.hpp, analysis_keys()).
AnalysisParts analysis_parts(const std::vector<std::string>& requested);

struct TraceAnalysisOptions {
  AnalysisParts parts;
  WaitPathOptions wait_paths;  // --partitions, --delay-rules
  NearCriticalQuery paths;     // --k, --nc
  WindowChoice windows;        // --window, --min-events
  PopOptions pop;              // eager limit of the ideal network; an externally replayed T_ideal
  // Steps that read the same data run side by side (two at a time), and the MBM's passes are
  // shared out, on this many threads: 0 = one per core, 1 = one step after another. The results
  // do not depend on it.
  unsigned threads = 0;
  // Keep the PAG's graph and calls in the result (e.g. for mbm_all() of other call paths later);
  // without, they are freed once the analyses are done, for reports built after (wisp analyze).
  bool keep_graph = true;
  // MBM_all of these call paths too (pag.mbm_of), whether or not they are rows of the MBM: what a
  // scenario's `zero` transform removed, compared with its simulated gain.
  std::vector<CallpathId> mbm_of;
};

struct TraceAnalysis {
  AnalysisParts parts;              // what was computed
  WaitPathAnalysis wait_paths;      // the wait-path analysis
  MetricTable table;                // its tidy metric table
  PagAnalysis pag;                  // PAG, CPM, near-critical paths, MBM; the CPM's per-vertex times and the
                                    // paths' successor table are freed once the MBM no longer needs them
                                    // (pag.cpm.length stays; analyze_pag() keeps everything)
  WaitEstimate waits;               // minimum-based estimate with the wait-path analysis's wait states as trace_based
  PopAnalysis pop;                  // whole run and windows (pop.window_options: how they were made)
  std::vector<ThreadTime> threads;  // hybrid traces: per-thread time in every call path
  CommMatrix communication;         // messages and bytes per rank pair
  std::vector<std::pair<std::string, double>> timings;  // wall seconds per step, in order
};

TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options = {});

// Spread over processes (a trace read with a ProcessGroup: Trace::share), as Scalasca's parallel
// replay: the wait-path analysis, the wait estimate, POP, the activity-graph analysis, the
// communication matrix and the threads' profile, each equal on every process to analyze_trace() of
// the whole trace with the same parts (the activity graph itself is not kept: `pag.pag.graph` is
// empty). POP or the activity-graph analysis is left out (its part false) if its dependencies form
// a cycle (events with equal time stamps out of order), which only the whole trace's graph breaks.
TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options, ProcessGroup& group);

// The wait-path analysis's waiting time per (call path, rank) in the pattern the minimum-based estimate
// compares with (paper 002 Fig. 3): Late Sender for MPI_Recv / MPI_Wait / MPI_Waitall, Wait at N x N
// for the N x N collectives, Wait at Barrier for MPI_Barrier. Only call paths of those functions.
TraceBasedWaits trace_based_waits(const Trace& trace, const WaitStates& waits);

}  // namespace wisp
