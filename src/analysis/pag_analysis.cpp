// One-call PAG analysis. See pag_analysis.hpp.
#include "wisp/analysis/pag_analysis.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "wisp/group/pack.hpp"

namespace wisp {

NearCriticalQuery distinct_query(NearCriticalQuery q, Ticks length) {
  q.min_detour = std::max<Ticks>(1, static_cast<Ticks>(static_cast<double>(length) * kDistinctDetour));
  return q;
}

PagAnalysis analyze_pag(const Trace& trace, const PagAnalysisOptions& options) {
  PagAnalysis a;
  a.pag = build_pag(trace, options.pag);
  SoloProcess alone;
  analyze_built_pag(a, options, alone, one_after_another());  // true: a whole graph breaks its own cycles
  return a;
}

bool analyze_built_pag(PagAnalysis& a, const PagAnalysisOptions& options, ProcessGroup& group, StepRunner& run,
                       const std::function<void()>& before_mbm) {
  a.pag.anomalies = anomalies_over(a.pag, group);
  // A cycle (events with equal time stamps out of order) only the whole trace's graph can break.
  if (a.pag.spread && group.processes() > 1 && a.pag.anomalies.cycle_activities > 0) return false;
  std::vector<std::uint32_t> critical;
  std::optional<Cpm> cpm;
  run.step("critical path method", [&] { cpm = critical_path_method(a.pag, critical, group); });
  if (!cpm) return false;
  a.cpm = std::move(*cpm);
  run.step("near-critical paths", [&] {
    a.paths = near_critical_paths(a.pag, a.cpm, options.query, critical, group, run.threads());
    a.distinct =
        near_critical_paths(a.pag, a.cpm, distinct_query(options.query, a.cpm.length), critical, group, run.threads());
    a.distinct.successor = Successors();
  });
  // The MBM needs the CPM's length and the paths, not their per-vertex tables: freed first, so that
  // the MBM's lanes take their place instead of adding to them.
  a.cpm.tails = ChainTails();
  a.paths.successor = Successors();
  if (before_mbm) before_mbm();
  run.freed();
  // Its passes are independent: on every thread the runner has.
  run.step("maximum benefit metric", [&] { a.mbm = maximum_benefit(a.pag, a.cpm, a.paths, group, run.threads()); });
  if (!options.mbm_of.empty())
    run.step("MBM of the zeroed call paths",
             [&] { a.mbm_of = mbm_all_of(a.pag, a.cpm, options.mbm_of, group, run.threads()); });
  // What stays: seconds(), the anomalies, the variants; the graph is a working structure.
  a.pag.graph = ActivityGraph();
  a.pag.first_vertex = {};
  a.pag.ghosts = {};
  run.freed();
  return true;
}

std::optional<PagAnalysis> analyze_pag(const Trace& trace, const PagAnalysisOptions& options, ProcessGroup& group,
                                       StepRunner& run) {
  if (!trace.share) return analyze_pag(trace, options);
  PagAnalysis a;
  run.step("program activity graph", [&] { a.pag = build_pag(trace, options.pag, group); });
  if (!analyze_built_pag(a, options, group, run)) return std::nullopt;
  return a;
}

}  // namespace wisp
