// One-call PAG analysis. See pag_analysis.hpp.
#include "wisp/analysis/pag_analysis.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "analysis/pag_share.hpp"

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
  std::optional<clock::PagShare> s =
      clock::share_pag(trace, group, options.pag.rendezvous, options.pag.eager_limit, run);
  if (!s) return std::nullopt;
  run.step("activity graph over processes: the critical path", [&] { clock::mark_critical_path(trace, group, *s); });
  PagAnalysis a;
  a.pag.ticks_per_second = s->ticks_per_second;
  a.pag.origin = s->origin;
  a.pag.ideal_variant = options.pag.rendezvous == RendezvousRule::EagerLimit ? kFirstVariant : 0;
  a.pag.ideal_eager_limit = options.pag.rendezvous == RendezvousRule::EagerLimit ? options.pag.eager_limit : 0;
  const std::array<std::uint64_t, 2> anomalies{s->plan.receive_before_send, s->plan.inconsistent_collectives};
  for (const std::string& part : all_gather(group, packed(anomalies))) {
    Unpacker in(part);
    a.pag.anomalies.receive_before_send += in.get<std::uint64_t>();
    a.pag.anomalies.inconsistent_collectives += in.get<std::uint64_t>();
  }
  a.cpm.length = s->length;
  run.step("activity graph over processes: near-critical paths", [&] {
    a.paths = clock::share_near_critical_paths(trace, group, *s, options.query);
    a.distinct = clock::share_near_critical_paths(trace, group, *s, distinct_query(options.query, s->length));
  });
  run.step("activity graph over processes: MBM", [&] {
    a.mbm = benefit_rows(a.paths, [&](const std::vector<CallpathId>& to_zero) {
      return clock::share_mbm_all(trace, group, *s, to_zero);
    });
    if (!options.mbm_of.empty()) a.mbm_of = clock::share_mbm_all(trace, group, *s, options.mbm_of);
  });
  return a;
}

}  // namespace wisp
