// Everything one scenario point yields, computed below the report: both replays (point_replays.hpp), the
// analyses the scenario asks for on the measured, identity and scenario traces, the per-call-path
// comparison of their metrics, and, for `zero` transforms, MBM_all next to the simulated gain.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

// One metric on one call path, summed over ranks [s]: measured, identity (before), scenario (after).
struct CallpathComparison {
  std::string metric;      // Scalasca name ("time", "mpi_latesender", ...)
  std::string callpath;    // "main/MPI_Waitall"; empty for the program
  std::string short_name;  // the shortest unambiguous path of short names (trace/short_names.hpp)
  std::string source;      // "file:line" of its region, where the trace says
  double measured = 0, before = 0, after = 0;
  double change() const { return after - before; }
};

// A `zero` transform of a region set against the program activity graph of the identity trace:
// MBM_all of each zeroed call path is the graph's estimate of the gain the simulation measures.
struct ZeroVersusMbm {
  std::string callpath;
  double mbm_all = 0;
  double simulated_gain = 0;
};

struct PointEvaluation {
  PointResult result;  // runtimes, transform effects, trust, both replays (their traces dropped: below)
  TraceAnalysis measured, identity, scenario;                   // the scenario's analyses of the three traces
  TraceSummary measured_trace, identity_trace, scenario_trace;  // what the reports read of the traces
  std::vector<CallpathComparison> callpaths;                    // "time" first, then by metric; biggest change first
  std::vector<ZeroVersusMbm> zero_versus_mbm;
};

// What a caller does with each trace of the point once it is analysed (wisp run writes the
// simulated ones and draws every timeline): called with "measured", "identity", then "scenario".
using TraceUse = std::function<void(const std::string& name, const Trace& trace, const TraceAnalysis& analysis)>;

// How each trace of the point is analysed ("measured", "identity", "scenario"): analyze_trace() in
// this process unless given (wisp run under mpirun spreads it over the job's processes:
// driver/analysis_service.hpp). The scenario's options set `parts` and `mbm_of` only.
using TraceAnalyzer =
    std::function<TraceAnalysis(const std::string& name, const Trace& trace, const TraceAnalysisOptions& options)>;

// Replays the point (transforms applied once) and analyses it. Each trace is analysed and handed to
// `use`; each simulated one is then dropped before the next is made (the result's replays hold
// empty traces; their summaries are kept), so at most one simulated trace lives beside the measured
// one, except that a model-only identity stays until the gain interval has read it. The analyses
// keep no per-instance wait states (drop_instances: the timelines `use` made were their readers).
// Throws wisp::Error, ReplayDeadlock.
PointEvaluation evaluate_point(const Scenario& scenario, const Trace& measured, const TraceUse& use = {},
                               const TraceAnalyzer& analyzer = {});
// The same, freeing the measured trace as soon as the identity's simulated trace (the same records)
// can stand in for it: one trace less beside the identity's and the scenario's analyses (wisp run).
PointEvaluation evaluate_point(const Scenario& scenario, Trace&& measured, const TraceUse& use = {},
                               const TraceAnalyzer& analyzer = {});

// Whether the scenario asks for an analysis (a key of analysis_keys(), metric_catalogue.hpp).
bool wants(const Scenario& scenario, const std::string& analysis);

}  // namespace wisp
