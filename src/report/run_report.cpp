// `wisp run` reports. See run_report.hpp.
#include "wisp/report/run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/report/trace_analysis_report.hpp"
#include "wisp/scenario/selection.hpp"

namespace wisp {

namespace {

bool wanted(const Scenario& s, const std::string& analysis) {
  return std::find(s.analyses.begin(), s.analyses.end(), analysis) != s.analyses.end();
}

bool has_zero_region(const Scenario& s) {
  return std::any_of(s.transforms.begin(), s.transforms.end(), [](const Transform& t) {
    return t.kind == TransformKind::Zero && !t.communication;
  });
}

// The metrics compared call path by call path (Scalasca names): time always, the others when
// the scenario asks for their analysis.
bool compared(const Scenario& s, const std::string& metric) {
  static const std::set<std::string> waits{
      "mpi_latesender", "mpi_latereceiver", "mpi_wait_nxn", "mpi_barrier_wait", "mpi_latebroadcast",
      "mpi_earlyreduce", "mpi_earlyscan", "mpi_finalize_wait"};
  if (metric == "time") return true;
  if (waits.count(metric)) return wanted(s, "wait_states");
  if (metric == "critical_path" || metric == "critical_path_imbalance") return wanted(s, "critical_path");
  return metric.starts_with("delay_") && !metric.ends_with("_count") && wanted(s, "delays");
}

using Totals = std::map<std::pair<std::string, std::string>, double>;  // (metric, call path) -> sum

struct Analysed {
  TraceAnalysis analysis;
  Totals totals;
};

Analysed analyse(const Scenario& s, const Trace& trace, bool with_pag) {
  TraceAnalysisOptions options;
  options.parts.pag = with_pag;
  options.parts.wait_estimate = wanted(s, "wait_estimate");
  options.parts.pop = wanted(s, "pop");
  Analysed a{analyze_trace(trace, options), {}};
  const MetricTable& table = a.analysis.table;
  for (const MetricRecord& r : table.records) {
    const std::string& metric = table.metrics[r.metric];
    if (compared(s, metric)) a.totals[{metric, metric_callpath_name(trace.defs, r.callpath)}] += r.value;
  }
  return a;
}

struct Row {
  std::string metric, callpath;
  double measured = 0, before = 0, after = 0;
};

std::vector<Row> compare(const Totals& measured, const Totals& before, const Totals& after) {
  std::map<std::pair<std::string, std::string>, Row> rows;
  const auto put = [&](const Totals& t, double Row::*field) {
    for (const auto& [key, v] : t) {
      Row& r = rows[key];
      r.metric = key.first;
      r.callpath = key.second;
      r.*field = v;
    }
  };
  put(measured, &Row::measured);
  put(before, &Row::before);
  put(after, &Row::after);
  std::vector<Row> out;
  for (auto& [key, r] : rows) out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const Row& a, const Row& b) {
    if (a.metric != b.metric) return a.metric == "time" || (b.metric != "time" && a.metric < b.metric);
    return std::abs(a.after - a.before) > std::abs(b.after - b.before);
  });
  return out;
}

// For every `zero` transform of a region: MBM_all of its call paths on the identity trace's PAG,
// the graph counterpart of the simulated gain.
nlohmann::json zero_versus_mbm(const Scenario& s, const PointResult& r, const PagAnalysis& pag,
                               std::string& text) {
  nlohmann::json out = nlohmann::json::array();
  const Trace& identity = r.identity_replay.trace;
  for (const Transform& t : s.transforms) {
    if (t.kind != TransformKind::Zero || t.communication) continue;
    std::set<CallpathId> callpaths;
    for (const Visit& v : select_visits(identity, t.select))
      callpaths.insert(identity.ranks[v.rank].events[v.enter].ref);
    for (CallpathId cp : callpaths) {
      const double mbm = pag.pag.seconds(mbm_all(pag.pag.graph, pag.cpm, cp));
      const std::string name = identity.defs.callpath_name(cp);
      out.push_back({{"callpath", name}, {"mbm_all", mbm}, {"simulated_gain", r.gain()}});
      text += fmt::format("  zero {}: simulated gain {:.6f} s, MBM_all on the identity PAG {:.6f} s\n",
                          name, r.gain(), mbm);
    }
  }
  return out;
}

std::string seconds(double s) { return fmt::format("{:.6f} s", s); }

nlohmann::json residual_json(const ResidualClass& c) {
  return {{"calls", c.calls}, {"traced", c.traced}, {"residual", c.residual},
          {"model_slower", c.model_slower}, {"model_slower_seconds", c.excess}, {"unmatched", c.unmatched}};
}

nlohmann::json trust_json(const PointResult& r) {
  nlohmann::json j = {{"identity_error", r.identity_error()}, {"costs", r.costs}, {"warnings", r.warnings}};
  if (r.residuals) {
    nlohmann::json classes = nlohmann::json::object();
    for (int i = 0; i < kCallClassCount; ++i)
      if (r.residuals->by_class[i].calls) classes[std::string(to_string(static_cast<CallClass>(i)))] = residual_json(r.residuals->by_class[i]);
    j["residuals"] = {{"total", residual_json(r.residuals->total())}, {"by_class", classes}};
  }
  return j;
}

std::string trust_text(const PointResult& r) {
  std::string t = fmt::format("identity      vs measured {:+.2f} % ({} costs", 100 * r.identity_error(), r.costs);
  if (r.residuals) {
    const ResidualClass all = r.residuals->total();
    t += fmt::format("; residuals {:.6f} s of {:.6f} s traced MPI time", all.residual, all.traced);
    if (all.model_slower + all.unmatched) t += fmt::format("; {} call(s) use the model", all.model_slower + all.unmatched);
  }
  t += ")\n";
  for (const std::string& w : r.warnings) t += "warning: " + w + "\n";
  return t;
}

}  // namespace

RunReport point_report(const Scenario& s, const std::string& trace_source, const Trace& measured,
                       const PointResult& r) {
  RunReport report;
  nlohmann::json& j = report.json;
  j["scenario"] = s.name;
  j["file"] = s.file.string();
  if (!s.description.empty()) j["description"] = s.description;
  j["trace"] = {{"source", trace_source}, {"ranks", measured.rank_count()}, {"events", measured.event_count()}};
  j["platform"] = {{"identity", r.platform}};
  if (!r.scenario_platform.empty()) j["platform"]["scenario"] = r.scenario_platform;
  j["runtime"] = {{"measured", r.measured}, {"identity", r.identity}, {"scenario", r.scenario},
                  {"identity_error", r.identity_error()}};
  j["gain"] = {{"seconds", r.gain()}, {"percent", r.gain_percent()}};
  j["trust"] = trust_json(r);
  j["transforms"] = nlohmann::json::array();
  for (const auto& e : r.effects)
    j["transforms"].push_back({{"description", e.description}, {"visits", e.visits},
                               {"computation_before", e.before}, {"computation_after", e.after}});

  std::string& t = report.text;
  t += fmt::format("scenario      {} ({})\n", s.name, s.file.string());
  if (!s.description.empty()) t += fmt::format("              {}\n", s.description);
  t += fmt::format("trace         {} ({} ranks, {} events)\n", trace_source, measured.rank_count(), measured.event_count());
  t += fmt::format("platform      {}\n", r.platform);
  if (!r.scenario_platform.empty()) t += fmt::format("  scenario    {}\n", r.scenario_platform);
  t += "transforms\n";
  if (r.effects.empty()) t += "  none (the scenario is the identity)\n";
  for (std::size_t i = 0; i < r.effects.size(); ++i) {
    const auto& e = r.effects[i];
    t += fmt::format("  {}. {}", i + 1, e.description);
    if (e.visits) t += fmt::format(": {} visits, computation {:.6f} s -> {:.6f} s", e.visits, e.before, e.after);
    t += "\n";
  }
  t += fmt::format("\nruntime       measured {}   identity {}   scenario {}\n", seconds(r.measured),
                   seconds(r.identity), seconds(r.scenario));
  t += trust_text(r);
  t += fmt::format("gain          {} ({:.2f} %) = identity - scenario\n", seconds(r.gain()), r.gain_percent());

  const bool pag = wanted(s, "pag");
  const Analysed m = analyse(s, measured, pag);
  const Analysed before = analyse(s, r.identity_replay.trace, pag || has_zero_region(s));
  const Analysed after = analyse(s, r.scenario_replay.trace, pag);

  std::string zero_text;
  const nlohmann::json zero = zero_versus_mbm(s, r, before.analysis.pag, zero_text);
  if (!zero.empty()) {
    j["zero_versus_mbm"] = zero;
    t += "\nzero in simulation vs the program activity graph\n" + zero_text;
  }

  if (wanted(s, "pop")) {
    const PopFactors& a = before.analysis.pop.whole;
    const PopFactors& b = after.analysis.pop.whole;
    t += fmt::format("\nPOP           identity -> scenario: load balance {:.3f} -> {:.3f}, serialisation "
                     "{:.3f} -> {:.3f}, transfer {:.3f} -> {:.3f}, parallel efficiency {:.3f} -> {:.3f}\n",
                     a.load_balance, b.load_balance, a.serialisation, b.serialisation, a.transfer,
                     b.transfer, a.parallel_efficiency, b.parallel_efficiency);
  }

  j["callpaths"] = nlohmann::json::array();
  const auto rows = compare(m.totals, before.totals, after.totals);
  t += "\nper call path, summed over ranks [s]       measured     identity     scenario       change\n";
  std::string metric;
  for (const Row& row : rows) {
    j["callpaths"].push_back({{"metric", row.metric}, {"callpath", row.callpath}, {"measured", row.measured},
                              {"before", row.before}, {"after", row.after}, {"change", row.after - row.before}});
    if (std::abs(row.before) < 1e-9 && std::abs(row.after) < 1e-9) continue;
    if (row.metric != metric) t += fmt::format("  {}\n", metric = row.metric);
    t += fmt::format("    {:<36} {:>12.6f} {:>12.6f} {:>12.6f} {:>+12.6f}\n",
                     row.callpath.empty() ? "(program)" : row.callpath, row.measured, row.before,
                     row.after, row.after - row.before);
  }
  j["analyses"] = {{"measured", trace_analysis_json(measured, trace_source, m.analysis)},
                   {"identity", trace_analysis_json(r.identity_replay.trace, "identity replay", before.analysis)},
                   {"scenario", trace_analysis_json(r.scenario_replay.trace, "scenario replay", after.analysis)}};
  return report;
}

std::string sweep_csv(const Scenario& s, const std::vector<SweepRow>& rows) {
  std::string out = "point";
  for (const auto& axis : s.sweep) out += "," + axis.key;
  out += ",measured,identity,scenario,gain_seconds,gain_percent,error\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i];
    out += std::to_string(i);
    for (const auto& v : r.values) out += "," + v;
    if (r.error.empty()) {
      const double gain = r.identity - r.scenario;
      out += fmt::format(",{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},\n", r.measured, r.identity, r.scenario,
                         gain, r.identity > 0 ? 100 * gain / r.identity : 0.0);
    } else {
      std::string e = r.error;
      std::replace(e.begin(), e.end(), '"', '\'');
      out += ",,,,,,\"" + e + "\"\n";
    }
  }
  return out;
}

RunReport sweep_report(const Scenario& s, const std::string& trace_source, const std::vector<SweepRow>& rows) {
  RunReport report;
  nlohmann::json& j = report.json;
  j["scenario"] = s.name;
  j["file"] = s.file.string();
  j["trace"] = {{"source", trace_source}};
  j["axes"] = nlohmann::json::array();
  for (const auto& axis : s.sweep) j["axes"].push_back(axis.key);
  j["points"] = nlohmann::json::array();
  std::optional<std::size_t> best;
  std::string& t = report.text;
  t += fmt::format("sweep         {} ({}), {} points\n", s.name, s.file.string(), rows.size());
  t += fmt::format("trace         {}\n\n", trace_source);
  std::string header = "  point";
  for (const auto& axis : s.sweep) header += fmt::format("  {:>24}", axis.key);
  t += header + "      identity      scenario          gain\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i];
    nlohmann::json p = {{"point", i}, {"name", r.name}};
    for (std::size_t a = 0; a < s.sweep.size(); ++a) p["values"][s.sweep[a].key] = r.values[a];
    std::string line = fmt::format("  {:>5}", i);
    for (const auto& v : r.values) line += fmt::format("  {:>24}", v);
    if (!r.error.empty()) {
      p["error"] = r.error;
      line += "  failed: " + r.error;
    } else {
      p["runtime"] = {{"measured", r.measured}, {"identity", r.identity}, {"scenario", r.scenario}};
      p["gain"] = {{"seconds", r.identity - r.scenario},
                   {"percent", r.identity > 0 ? 100 * (r.identity - r.scenario) / r.identity : 0.0}};
      line += fmt::format("  {:>12.6f}  {:>12.6f}  {:>+12.6f}", r.identity, r.scenario, r.identity - r.scenario);
      if (!best || r.scenario < rows[*best].scenario) best = i;
    }
    j["points"].push_back(p);
    t += line + "\n";
  }
  if (best) {
    j["best"] = *best;
    t += fmt::format("\nbest point    {} ({}): scenario runtime {}\n", *best, rows[*best].name,
                     seconds(rows[*best].scenario));
  }
  return report;
}

}  // namespace wisp
