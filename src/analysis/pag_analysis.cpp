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
  a.cpm = critical_path_method(a.pag.graph);
  a.paths = near_critical_paths(a.pag.graph, a.cpm, options.query);
  a.distinct = near_critical_paths(a.pag.graph, a.cpm, distinct_query(options.query, a.cpm.length));
  a.distinct.successor = Successors();
  a.mbm = maximum_benefit(a.pag.graph, a.cpm, a.paths);
  a.mbm_of = mbm_all_of(a.pag.graph, a.cpm, options.mbm_of);
  return a;
}

std::optional<PagAnalysis> analyze_pag(const Trace& trace, const PagAnalysisOptions& options, ProcessGroup& group,
                                       StepRunner& run) {
  if (!trace.share) return analyze_pag(trace, options);
  PagAnalysis a;
  run.step("program activity graph", [&] { a.pag = build_pag(trace, options.pag, group); });
  a.pag.anomalies = anomalies_over(a.pag, group);
  // A cycle (events with equal time stamps out of order) only the whole trace's graph can break.
  if (group.processes() > 1 && a.pag.anomalies.cycle_activities > 0) return std::nullopt;
  std::vector<std::uint32_t> critical;
  std::optional<Cpm> cpm;
  run.step("critical path method", [&] { cpm = critical_path_method(a.pag, critical, group); });
  if (!cpm) return std::nullopt;
  a.cpm = std::move(*cpm);
  run.step("near-critical paths", [&] {
    a.paths = near_critical_paths(a.pag, a.cpm, options.query, critical, group);
    a.distinct = near_critical_paths(a.pag, a.cpm, distinct_query(options.query, a.cpm.length), critical, group);
  });
  a.paths.successor = Successors();
  a.distinct.successor = Successors();
  a.cpm.tails = ChainTails();
  run.step("maximum benefit metric", [&] {
    a.mbm = maximum_benefit(a.pag, a.cpm, a.paths, group);
    if (!options.mbm_of.empty()) a.mbm_of = mbm_all_of(a.pag, a.cpm, options.mbm_of, group);
  });
  a.pag.graph = ActivityGraph();  // this process's part: a working structure
  a.pag.first_vertex = {};
  a.pag.ghosts = {};
  return a;
}

}  // namespace wisp
