// Everything the activity-graph analysis derives from the program activity graph, in one call: the PAG, its CPM,
// the near-critical paths of a query and the MBM rows. What `wisp analyze --k/--nc` runs.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/analysis/step_runner.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp {

struct PagAnalysisOptions {
  NearCriticalQuery query;  // --k, --nc
  PagOptions pag;
  std::vector<CallpathId> mbm_of;  // MBM_all of these call paths too, rows or not (what a scenario zeroes)
};

struct PagAnalysis {
  Pag pag;
  Cpm cpm;
  NearCriticalPaths paths;     // paper 001's k paths (the MBM's)
  NearCriticalPaths distinct;  // the k most critical distinct ones: detours shorter than kDistinctDetour
                               // of d_cp are variants (counted); without their successor table
  std::vector<MbmRow> mbm;
  std::vector<Ticks> mbm_of;  // MBM_all of options.mbm_of, in its order
};
// The detour below which two near-critical paths are one (a share of the critical path's length).
inline constexpr double kDistinctDetour = 1e-3;
// The query of the distinct paths for a critical path of `length` ticks.
NearCriticalQuery distinct_query(NearCriticalQuery query, Ticks length);

// The graph of the whole trace (freed at the end, as analyze_built_pag() does).
PagAnalysis analyze_pag(const Trace& trace, const PagAnalysisOptions& options = {});

// Spread over processes (a trace read with a ProcessGroup: Trace::share), collective over `group`:
// the same steps on this process's part of the graph (build_pag(trace, options.pag, group), glued
// to the others' at ghosts), the same length, paths, MBM rows and anomalies on every process as
// analyze_pag() of the whole trace; the part is freed at the end (`pag.graph` empty; `paths` have
// no successor table). nullopt on every process if the dependencies form a cycle (events with
// equal time stamps out of order), which only a graph of the whole trace can break.
std::optional<PagAnalysis> analyze_pag(const Trace& trace, const PagAnalysisOptions& options, ProcessGroup& group,
                                       StepRunner& run = one_after_another());

// The steps after the build, on a.pag (a whole graph, or this process's part of a spread one:
// collective over `group`): the CPM, the k and the distinct near-critical paths, the MBM rows (and
// MBM_all of options.mbm_of); `before_mbm` runs once the per-vertex tables are freed. The graph
// is freed at the end; a part's anomalies become every part's sum (anomalies_over). false (on
// every process) if the dependencies form a cycle, which over processes only the whole graph breaks.
bool analyze_built_pag(PagAnalysis& a, const PagAnalysisOptions& options, ProcessGroup& group, StepRunner& run,
                       const std::function<void()>& before_mbm = {});

}  // namespace wisp
