// One scenario point, evaluated. See evaluate.hpp.
#include "wisp/scenario/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/scenario/kept_residuals.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

namespace {

// The PAG part also gives MBM_all of `mbm_of` (the zeroed call paths, for zero_versus_mbm).
TraceAnalysis analyze_for_scenario(const Scenario& s, const std::string& name, const Trace& trace, bool with_pag,
                                   const TraceAnalyzer& analyzer, const std::vector<CallpathId>& mbm_of = {}) {
  TraceAnalysisOptions options;
  options.parts = analysis_parts(s.analyses);
  options.parts.pag |= with_pag;
  options.mbm_of = mbm_of;
  return_free_memory();  // what the replays' answers and the last trace left: the analysis takes its place
  return analyzer ? analyzer(name, trace, options) : analyze_trace(trace, options);
}

using Totals = std::map<std::pair<std::string, std::string>, CallpathComparison>;  // (metric, call path)

void add_totals(const Scenario& s, const Definitions& defs, const MetricTable& table, double CallpathComparison::*field,
                Totals& totals) {
  for (const MetricRecord& r : table.records) {
    const std::string& metric = table.metrics[r.metric];
    if (!compared_by_callpath(metric, s.analyses)) continue;
    const std::string callpath = metric_callpath_name(defs, r.callpath);
    CallpathComparison& row = totals[{metric, callpath}];
    row.metric = metric;
    row.callpath = callpath;
    row.*field += r.value;
  }
}

std::vector<CallpathComparison> compare(const Scenario& s, const PointEvaluation& e) {
  const TraceSummary& measured = e.measured_trace;
  Totals totals;
  add_totals(s, measured.defs, e.measured.table, &CallpathComparison::measured, totals);
  add_totals(s, e.identity_trace.defs, e.identity.table, &CallpathComparison::before, totals);
  add_totals(s, e.scenario_trace.defs, e.scenario.table, &CallpathComparison::after, totals);
  std::map<std::string, CallpathId> ids;  // full call path name -> call path of the measured trace
  const std::vector<std::string> names = callpath_display_names(measured.defs);
  for (CallpathId cp = 0; cp < names.size(); ++cp) ids[measured.defs.callpath_name(cp)] = cp;
  std::vector<CallpathComparison> rows;
  for (auto& [key, row] : totals) {
    const auto found = ids.find(row.callpath);
    row.short_name = found == ids.end() ? row.callpath : names[found->second];
    if (found != ids.end()) row.source = source_location(measured.defs.region_of(found->second));
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const CallpathComparison& a, const CallpathComparison& b) {
    if (a.metric != b.metric) return a.metric == "time" || (b.metric != "time" && a.metric < b.metric);
    return std::abs(a.change()) > std::abs(b.change());
  });
  return rows;
}

// The call paths the `zero` transforms of a region zeroed, each once (two transforms may select
// the same call path, e.g. `zero compute` on ranks 0-1 and on ranks 2-3), ascending.
std::vector<CallpathId> zeroed_callpaths(const Scenario& s, const std::vector<TransformEffect>& effects) {
  std::vector<CallpathId> out;
  for (std::size_t i = 0; i < s.transforms.size(); ++i)
    if (s.transforms[i].kind == TransformKind::Zero && !s.transforms[i].communication)
      out.insert(out.end(), effects[i].callpaths.begin(), effects[i].callpaths.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// For every call path zeroed by a `zero` transform of a region: its MBM_all on the identity
// trace's PAG (`zeroed`, as analysed; the replay keeps the trace's definitions, so call path ids agree).
std::vector<ZeroVersusMbm> zero_versus_mbm(const std::vector<CallpathId>& zeroed, const PointEvaluation& e) {
  std::vector<ZeroVersusMbm> out;
  if (!e.identity.pag) return out;  // left out over processes
  const PagAnalysis& pag = *e.identity.pag;
  for (std::size_t i = 0; i < zeroed.size() && i < pag.mbm_of.size(); ++i)
    out.push_back({e.identity_trace.defs.callpath_name(zeroed[i]), pag.pag.seconds(pag.mbm_of[i]), e.result.gain()});
  return out;
}

// How far to trust the gain: the critical path's share in kept residuals (anchored costs), what a
// platform change can act on, and the interval's warnings, after the identity's.
void add_gain_trust(const Scenario& s, PointEvaluation& e) {
  PointResult& r = e.result;
  if (changes_platform(s)) {
    r.platform_reach = platform_reach(r.residuals);
    if (e.identity.pop && e.identity.pop->whole.ideal > 0) r.pop_ideal_network = e.identity.pop->whole.ideal;
  }
  if (r.platform_reach)
    if (std::string w = platform_reach_warning(*r.platform_reach); !w.empty()) r.warnings.push_back(std::move(w));
  const CriticalPath& path = e.scenario.wait_paths.critical_path;
  if (r.identity_replay.residuals && !r.scenario_replay.trace.ranks.empty())
    r.kept_residual_share =
        kept_residual_share(r.scenario_replay.trace, *r.identity_replay.residuals, path.segments, path.length);
  if (r.kept_residual_share)
    if (std::string w = kept_residual_warning(*r.kept_residual_share); !w.empty()) r.warnings.push_back(std::move(w));
  if (s.transforms.empty())  // its interval straddles a gain of 0 by construction: say why instead
    r.warnings.push_back("the scenario has no transforms: it equals the identity, its gain is 0 by construction");
  else if (std::string w = interval_warning(r.interval); !w.empty())
    r.warnings.push_back(std::move(w));
  if (!r.interval.available && !r.interval.note.empty()) r.warnings.push_back(r.interval.note);
}

// The measured trace's analyses run while the identity replays (in its child processes); the
// identity's once the scenario's replays have ended, whose processes hold the transformed trace:
// at most two traces' worth beside an analysis. `owned`: the measured trace, freed once the
// identity's trace stands in for it.
PointEvaluation evaluate(const Scenario& s, const Trace& measured, Trace* owned, const TraceUse& use,
                         const TraceAnalyzer& analyzer) {
  PointEvaluation e;
  const bool pag = wants(s, "pag");
  PointRun run(s, measured, owned);
  const std::vector<CallpathId> zeroed = zeroed_callpaths(s, run.effects());
  e.measured = analyze_for_scenario(s, "measured", measured, pag, analyzer);
  e.measured_trace = measured;
  if (use) use("measured", measured, e.measured);
  drop_instances(e.measured.wait_paths.waits);
  const Trace& identity = run.identity().trace;
  run.wait_replays();  // the identity is analysed once the scenario's replays (and their memory) are gone
  e.identity = analyze_for_scenario(s, "identity", identity, pag || !zeroed.empty(), analyzer, zeroed);
  e.identity_trace = identity;
  if (use) use("identity", identity, e.identity);
  drop_instances(e.identity.wait_paths.waits);
  run.release_identity_trace();
  e.result = run.finish();
  release(e.result.identity_replay.trace);
  Trace& scenario = e.result.scenario_replay.trace;
  e.scenario = analyze_for_scenario(s, "scenario", scenario, pag, analyzer);
  e.scenario_trace = scenario;
  add_gain_trust(s, e);
  if (use) use("scenario", scenario, e.scenario);
  drop_instances(e.scenario.wait_paths.waits);
  release(scenario);
  e.callpaths = compare(s, e);
  e.zero_versus_mbm = zero_versus_mbm(zeroed, e);
  return e;
}

}  // namespace

bool wants(const Scenario& s, const std::string& analysis) {
  return std::find(s.analyses.begin(), s.analyses.end(), analysis) != s.analyses.end();
}

PointEvaluation evaluate_point(const Scenario& s, const Trace& measured, const TraceUse& use,
                               const TraceAnalyzer& analyzer) {
  return evaluate(s, measured, nullptr, use, analyzer);
}

PointEvaluation evaluate_point(const Scenario& s, Trace&& measured, const TraceUse& use,
                               const TraceAnalyzer& analyzer) {
  Trace owned = std::move(measured);
  return evaluate(s, owned, &owned, use, analyzer);
}

}  // namespace wisp
