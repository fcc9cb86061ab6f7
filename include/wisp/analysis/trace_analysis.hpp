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
#include "wisp/analysis/step_runner.hpp"
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
  // MBM_all of these call paths too (pag.mbm_of), whether or not they are rows of the MBM: what a
  // scenario's `zero` transform removed, compared with its simulated gain.
  std::vector<CallpathId> mbm_of;
};

// The results. A part not asked for (AnalysisParts), or left out over processes, is absent; the
// activity graph itself is a working structure, not a result: freed once the MBM is done
// (analyze_pag() keeps it).
struct TraceAnalysis {
  WaitPathAnalysis wait_paths;        // the wait-path analysis (always: the others build on it)
  MetricTable table;                  // its tidy metric table
  std::optional<PagAnalysis> pag;     // CPM length, near-critical paths, MBM, anomalies; no graph
  std::optional<WaitEstimate> waits;  // minimum-based estimate, the wait-path analysis's wait states as trace_based
  std::optional<PopAnalysis> pop;     // whole run and windows (pop->window_options: how they were made)
  std::vector<ThreadTime> threads;    // hybrid traces: per-thread time in every call path
  CommMatrix communication;           // messages and bytes per rank pair
  // The parts it holds, as asked for in TraceAnalysisOptions::parts.
  AnalysisParts parts() const { return AnalysisParts{pag.has_value(), waits.has_value(), pop.has_value()}; }
};

// Steps that read the same data run side by side where `runner` has the cores (step_runner.hpp);
// the results do not depend on it.
TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options = {},
                            StepRunner& runner = one_after_another());

// Spread over processes (a trace read with a ProcessGroup: Trace::share), as Scalasca's parallel
// replay: the wait-path analysis, the wait estimate, POP, the activity-graph analysis, the
// communication matrix and the threads' profile, each equal on every process to analyze_trace() of
// the whole trace with the same parts. POP or the activity-graph analysis is left out (absent) if its dependencies form
// a cycle (events with equal time stamps out of order), which only the whole trace's graph breaks.
TraceAnalysis analyze_trace(const Trace& trace, const TraceAnalysisOptions& options, ProcessGroup& group,
                            StepRunner& runner = one_after_another());

// The wait-path analysis's waiting time per (call path, rank) in the pattern the minimum-based estimate
// compares with (paper 002 Fig. 3): Late Sender for MPI_Recv / MPI_Wait / MPI_Waitall, Wait at N x N
// for the N x N collectives, Wait at Barrier for MPI_Barrier. Only call paths of those functions.
TraceBasedWaits trace_based_waits(const Trace& trace, const WaitStates& waits);

}  // namespace wisp
