// `wisp run` reports. See run_report.hpp.
#include "wisp/report/run_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "wisp/report/gain_interval_report.hpp"
#include "wisp/report/trace_analysis_report.hpp"
#include "wisp/scenario/platform_reach.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

namespace {

std::string seconds(double s) { return fmt::format("{:.6f} s", s); }

nlohmann::json reach_json(const PlatformReach& r) {
  return {{"traced_mpi_seconds", r.traced},
          {"network_seconds", r.network},
          {"waiting_seconds", r.waiting},
          {"init_finalize_seconds", r.init_finalize},
          {"residual_seconds", r.residual},
          {"typical_excess_seconds", r.typical},
          {"share", r.share()},
          {"explained", r.explained()}};
}

nlohmann::json residual_json(const ResidualClass& c) {
  return {{"calls", c.calls},
          {"traced", c.traced},
          {"residual", c.residual},
          {"partner_lateness", c.dependent},
          {"network", c.network},
          {"waiting", c.waiting},
          {"model_slower", c.model_slower},
          {"model_slower_seconds", c.excess},
          {"unmatched", c.unmatched}};
}

nlohmann::json trust_json(const PointResult& r) {
  nlohmann::json j = {{"identity_error", r.identity_error()}, {"costs", r.costs}, {"warnings", r.warnings}};
  j["kept_residual_share"] = r.kept_residual_share ? nlohmann::json(*r.kept_residual_share) : nlohmann::json(nullptr);
  if (r.platform_reach) j["platform_reach"] = reach_json(*r.platform_reach);
  if (r.pop_ideal_network || r.infinitely_fast_network)
    j["ideal_networks"] = {
        {"transfers_and_mpi_calls_take_no_time", r.pop_ideal_network ? nlohmann::json(*r.pop_ideal_network) : nullptr},
        {"network_infinitely_fast_calls_keep_software_cost",
         r.infinitely_fast_network ? nlohmann::json(*r.infinitely_fast_network) : nullptr}};
  if (r.residuals) {
    nlohmann::json classes = nlohmann::json::object();
    for (int i = 0; i < kCallClassCount; ++i)
      if (r.residuals->by_class[i].calls)
        classes[std::string(to_string(static_cast<CallClass>(i)))] = residual_json(r.residuals->by_class[i]);
    j["residuals"] = {{"total", residual_json(r.residuals->total())}, {"by_class", classes}};
  }
  return j;
}

// The two ideal networks of a platform what-if, each under what it assumes.
std::string ideal_networks_text(const PointResult& r) {
  std::string t;
  for (const std::string& line : ideal_network_lines(r.pop_ideal_network, r.infinitely_fast_network, r.identity))
    t += line + "\n";
  return t;
}

std::string trust_text(const PointResult& r) {
  std::string t = fmt::format("identity      vs measured {:+.2f} % ({} costs", 100 * r.identity_error(), r.costs);
  if (r.residuals) {
    const ResidualClass all = r.residuals->total();
    t += fmt::format("; residuals {:.6f} s of {:.6f} s traced MPI time", all.residual, all.traced);
    if (all.model_slower + all.unmatched)
      t += fmt::format("; {} call(s) use the model", all.model_slower + all.unmatched);
  }
  t += ")\n";
  if (r.kept_residual_share)
    t += fmt::format("critical path {:.1f} % of the scenario's critical path is residual time kept as fixed cost\n",
                     100 * *r.kept_residual_share);
  if (r.platform_reach) t += "platform      " + platform_reach_text(*r.platform_reach) + "\n";
  t += ideal_networks_text(r);
  for (const std::string& w : r.warnings) t += "warning: " + w + "\n";
  return t;
}

nlohmann::json transforms_json(const PointResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : r.effects)
    out.push_back({{"description", e.description},
                   {"visits", e.visits},
                   {"computation_before", e.before},
                   {"computation_after", e.after}});
  return out;
}

// Where a replay's ranks ran: "node-0: 0 2, node-1: 1 3" (the first 8 hosts), and the bytes its
// messages carried between hosts.
std::string hosts_text(const ReplayStatistics& s) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> hosts;  // in order of first appearance
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < s.rank_hosts.size(); ++r) {
    const auto [it, added] = index.emplace(s.rank_hosts[r], hosts.size());
    if (added) hosts.push_back({s.rank_hosts[r], {}});
    hosts[it->second].second.push_back(r);
  }
  std::string t;
  for (std::size_t h = 0; h < hosts.size() && h < 8; ++h)
    t += fmt::format("{}{}: {}", h ? ", " : "", hosts[h].first, fmt::join(hosts[h].second, " "));
  if (hosts.size() > 8) t += fmt::format(", ... ({} hosts)", hosts.size());
  return t + fmt::format("; {:.4g} MB between hosts", static_cast<double>(s.bytes_between_hosts) / 1e6);
}

// Shown where ranks share a host or the scenario places them elsewhere.
bool placement_matters(const PointResult& r) {
  const auto& a = r.identity_replay.statistics.rank_hosts;
  const auto& b = r.scenario_replay.statistics.rank_hosts;
  const auto shared = [](std::vector<std::string> h) {
    std::sort(h.begin(), h.end());
    return std::adjacent_find(h.begin(), h.end()) != h.end();
  };
  return a != b || shared(a);
}

std::string placement_text(const PointResult& r) {
  if (!placement_matters(r)) return "";
  std::string t = "placement     " + hosts_text(r.identity_replay.statistics) + "\n";
  if (r.scenario_replay.statistics.rank_hosts != r.identity_replay.statistics.rank_hosts ||
      r.scenario_replay.statistics.bytes_between_hosts != r.identity_replay.statistics.bytes_between_hosts)
    t += "  scenario    " + hosts_text(r.scenario_replay.statistics) + "\n";
  return t;
}

nlohmann::json placement_json(const ReplayStatistics& s) {
  return {{"hosts", s.rank_hosts}, {"bytes_between_hosts", s.bytes_between_hosts}};
}

std::string transforms_text(const PointResult& r) {
  std::string t = "transforms\n";
  if (r.effects.empty()) t += "  none (the scenario is the identity)\n";
  for (std::size_t i = 0; i < r.effects.size(); ++i) {
    const auto& e = r.effects[i];
    t += fmt::format("  {}. {}", i + 1, e.description);
    if (e.visits)
      t += fmt::format("; selected {} visits, computation {:.6f} s -> {:.6f} s", e.visits, e.before, e.after);
    t += "\n";
  }
  return t;
}

std::string zero_text(const PointEvaluation& p) {
  if (p.zero_versus_mbm.empty()) return "";
  std::string t = "\nzero in simulation vs the program activity graph\n";
  for (const ZeroVersusMbm& z : p.zero_versus_mbm)
    t += fmt::format("  zero {}: simulated gain {:.6f} s, MBM_all on the identity PAG {:.6f} s\n",
                     short_path(z.callpath), z.simulated_gain, z.mbm_all);
  return t;
}

std::string pop_text(const Scenario& s, const PointEvaluation& p) {
  if (!wants(s, "pop") || !p.identity.pop || !p.scenario.pop) return "";
  const PopFactors& a = p.identity.pop->whole;
  const PopFactors& b = p.scenario.pop->whole;
  return fmt::format(
      "\nPOP           identity -> scenario: load balance {:.3f} -> {:.3f}, serialisation "
      "{:.3f} -> {:.3f}, transfer {:.3f} -> {:.3f}, parallel efficiency {:.3f} -> {:.3f}\n",
      a.load_balance, b.load_balance, a.serialisation, b.serialisation, a.transfer, b.transfer, a.parallel_efficiency,
      b.parallel_efficiency);
}

// A row prints as 0.000000 in all three columns: left out of the text (it stays in the JSON).
bool prints_as_zero(const CallpathComparison& row) {
  constexpr double kHalfMicrosecond = 0.5e-6;
  return std::abs(row.measured) < kHalfMicrosecond && std::abs(row.before) < kHalfMicrosecond &&
         std::abs(row.after) < kHalfMicrosecond;
}

// The first `top` non-zero rows of every metric (rows come grouped by metric, biggest change
// first); how many were left out beyond `top` per metric, and the all-zero rows at the end.
std::string callpaths_text(const PointEvaluation& p, std::size_t top) {
  std::string t = "\nper call path, summed over ranks [s]       measured     identity     scenario       change\n";
  std::size_t zero = 0;
  for (std::size_t begin = 0, end = 0; begin < p.callpaths.size(); begin = end) {
    const std::string& metric = p.callpaths[begin].metric;
    std::size_t shown = 0, beyond = 0;
    for (end = begin; end < p.callpaths.size() && p.callpaths[end].metric == metric; ++end) {
      const CallpathComparison& row = p.callpaths[end];
      if (prints_as_zero(row)) {
        ++zero;
      } else if (shown == top) {
        ++beyond;
      } else {
        if (shown++ == 0) t += fmt::format("  {}\n", metric);
        t += fmt::format("    {:<36} {:>12.6f} {:>12.6f} {:>12.6f} {:>+12.6f}\n",
                         row.callpath.empty() ? "(program)" : row.short_name, row.measured, row.before, row.after,
                         row.change());
      }
    }
    if (beyond) t += fmt::format("    ... {} more call path{} (--top, report.json)\n", beyond, beyond == 1 ? "" : "s");
  }
  if (zero)
    t += fmt::format("  {} row{} zero in all three columns omitted (report.json has them)\n", zero,
                     zero == 1 ? "" : "s");
  return t;
}

// The screen's summary: the `count` largest changes over every metric (changes below 0.5 us are
// not printed), and how many more there are.
std::string changes_text(const PointEvaluation& p, std::size_t count) {
  std::vector<const CallpathComparison*> changed;
  for (const CallpathComparison& row : p.callpaths)
    if (std::abs(row.change()) >= 0.5e-6) changed.push_back(&row);
  std::stable_sort(changed.begin(), changed.end(),
                   [](auto* a, auto* b) { return std::abs(a->change()) > std::abs(b->change()); });
  if (changed.empty()) return "\nno call path changed by 1 us or more in any metric\n";
  std::string t = fmt::format("\n{:<40} {:<26} {:>12} {:>12} {:>12}\n", "largest changes, summed over ranks [s]",
                              "metric", "identity", "scenario", "change");
  for (std::size_t k = 0; k < changed.size() && k < count; ++k) {
    const CallpathComparison& row = *changed[k];
    t += fmt::format("  {:<38} {:<26} {:>12.6f} {:>12.6f} {:>+12.6f}\n",
                     middle_shortened(row.callpath.empty() ? "(program)" : row.short_name, 38),
                     middle_shortened(row.metric, 26), row.before, row.after, row.change());
  }
  if (changed.size() > count)
    t += fmt::format("  ... {} more changed rows: report.txt per metric, --detail to print them\n",
                     changed.size() - count);
  return t;
}

std::string sweep_line(std::size_t i, const SweepRow& r) {
  std::string line = fmt::format("  {:>5}", i);
  for (const auto& v : r.values) line += fmt::format("  {:>24}", v.empty() ? "-" : v);  // -: the scenario's own
  if (!r.error.empty()) return line + "  failed: " + r.error;
  line += fmt::format("  {:>12.6f}  {:>12.6f}  {:>+12.6f}", r.identity, r.scenario, r.gain());
  if (!std::isnan(r.interval_low)) line += fmt::format("  [{:+.6f}, {:+.6f}]", r.interval_low, r.interval_high);
  return line;
}

}  // namespace

nlohmann::json point_json(const Scenario& s, const std::string& trace_source, const PointEvaluation& p,
                          const RunReportOptions& o) {
  const PointResult& r = p.result;
  nlohmann::json j;
  j["scenario"] = s.name;
  j["file"] = s.file.string();
  if (!s.description.empty()) j["description"] = s.description;
  j["trace"] = {
      {"source", trace_source}, {"ranks", p.measured_trace.rank_count()}, {"events", p.measured_trace.event_count()}};
  j["platform"] = {{"identity", r.platform}};
  if (!r.scenario_platform.empty()) j["platform"]["scenario"] = r.scenario_platform;
  if (placement_matters(r))
    j["placement"] = {{"identity", placement_json(r.identity_replay.statistics)},
                      {"scenario", placement_json(r.scenario_replay.statistics)}};
  j["runtime"] = {{"measured", r.measured},
                  {"identity", r.identity},
                  {"scenario", r.scenario},
                  {"identity_error", r.identity_error()}};
  j["gain"] = {{"seconds", r.gain()}, {"percent", r.gain_percent()}, {"interval", interval_json(r.interval)}};
  j["gain_interval"] = gain_interval_json(r.interval);
  j["trust"] = trust_json(r);
  j["transforms"] = transforms_json(r);
  if (!p.zero_versus_mbm.empty()) {
    j["zero_versus_mbm"] = nlohmann::json::array();
    for (const ZeroVersusMbm& z : p.zero_versus_mbm)
      j["zero_versus_mbm"].push_back(
          {{"callpath", z.callpath}, {"mbm_all", z.mbm_all}, {"simulated_gain", z.simulated_gain}});
  }
  j["callpaths"] = nlohmann::json::array();
  for (const CallpathComparison& row : p.callpaths)
    j["callpaths"].push_back({{"metric", row.metric},
                              {"callpath", row.callpath},
                              {"short_name", row.short_name},
                              {"source", row.source},
                              {"measured", row.measured},
                              {"before", row.before},
                              {"after", row.after},
                              {"change", row.change()}});
  j["analyses"] = {{"measured", trace_analysis_json(p.measured_trace, trace_source, p.measured, o.detail)},
                   {"identity", trace_analysis_json(p.identity_trace, "identity replay", p.identity, o.detail)},
                   {"scenario", trace_analysis_json(p.scenario_trace, "scenario replay", p.scenario, o.detail)}};
  if (!o.detail)  // per-rank rows: "callpaths" above holds their sums over ranks for all three traces
    for (auto& [which, analysis] : j["analyses"].items()) analysis.erase("metrics");
  return j;
}

std::string point_text(const Scenario& s, const std::string& trace_source, const PointEvaluation& p,
                       const RunReportOptions& o) {
  const PointResult& r = p.result;
  std::string t = fmt::format("scenario      {} ({})\n", s.name, s.file.string());
  if (!s.description.empty()) t += fmt::format("              {}\n", s.description);
  t += fmt::format("trace         {} ({} ranks, {} events)\n", trace_source, p.measured_trace.rank_count(),
                   p.measured_trace.event_count());
  t += fmt::format("platform      {}\n", r.platform);
  if (!r.scenario_platform.empty()) t += fmt::format("  scenario    {}\n", r.scenario_platform);
  t += placement_text(r);
  t += transforms_text(r);
  t += fmt::format("\nruntime       measured {}   identity {}   scenario {}\n", seconds(r.measured),
                   seconds(r.identity), seconds(r.scenario));
  t += trust_text(r);
  t += fmt::format("gain          {} ({:.2f} %) = identity - scenario\n", seconds(r.gain()), r.gain_percent());
  t += "interval      " + interval_text(r.interval) + "\n";
  return t + zero_text(p) + pop_text(s, p) + (o.summary ? changes_text(p, o.changes) : callpaths_text(p, o.top));
}

std::string sweep_csv(const Scenario& s, const SweepResult& sweep) {
  std::string out = "point";
  for (const auto& axis : s.sweep) out += "," + axis.key;
  out += ",measured,identity,scenario,gain_seconds,gain_percent,gain_low,gain_high,error\n";
  for (std::size_t i = 0; i < sweep.rows.size(); ++i) {
    const SweepRow& r = sweep.rows[i];
    out += std::to_string(i);
    for (const auto& v : r.values) out += "," + v;
    if (r.error.empty()) {
      out += fmt::format(",{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},", r.measured, r.identity, r.scenario, r.gain(),
                         r.gain_percent());
      out += std::isnan(r.interval_low) ? std::string(",,\n")
                                        : fmt::format("{:.9g},{:.9g},\n", r.interval_low, r.interval_high);
    } else {
      std::string e = r.error;
      std::replace(e.begin(), e.end(), '"', '\'');
      out += ",,,,,,,,\"" + e + "\"\n";
    }
  }
  return out;
}

nlohmann::json sweep_json(const Scenario& s, const std::string& trace_source, const SweepResult& sweep) {
  nlohmann::json j;
  j["scenario"] = s.name;
  j["file"] = s.file.string();
  j["trace"] = {{"source", trace_source}};
  j["axes"] = nlohmann::json::array();
  for (const auto& axis : s.sweep) j["axes"].push_back(axis.key);
  j["design"] = s.sweep_design == SweepDesign::OneAtATime ? "one-at-a-time"
                : s.sweep_design == SweepDesign::Zipped   ? "zipped"
                                                          : "cartesian";
  j["points"] = nlohmann::json::array();
  for (std::size_t i = 0; i < sweep.rows.size(); ++i) {
    const SweepRow& r = sweep.rows[i];
    nlohmann::json p = {{"point", i}, {"name", r.name}};
    for (std::size_t a = 0; a < s.sweep.size(); ++a)  // null: the axis keeps the scenario's own value
      p["values"][s.sweep[a].key] = r.values[a].empty() ? nlohmann::json(nullptr) : nlohmann::json(r.values[a]);
    if (!r.error.empty()) {
      p["error"] = r.error;
    } else {
      p["runtime"] = {{"measured", r.measured}, {"identity", r.identity}, {"scenario", r.scenario}};
      p["gain"] = {{"seconds", r.gain()}, {"percent", r.gain_percent()}};
      p["gain_interval"] = gain_interval_json(r.interval_low, r.interval_high);
    }
    j["points"].push_back(p);
  }
  if (const auto best = sweep.gaining_best()) j["best"] = *best;
  if (const auto reach = sweep.platform_reach(s)) {
    j["platform_reach"] = reach_json(*reach);
    if (std::string w = platform_reach_warning(*reach); !w.empty()) j["warnings"].push_back(w);
  }
  return j;
}

std::string sweep_text(const Scenario& s, const std::string& trace_source, const SweepResult& sweep) {
  std::string t =
      fmt::format("sweep         {} ({}), {} points{}\n", s.name, s.file.string(), sweep.rows.size(),
                  s.sweep_design == SweepDesign::OneAtATime ? ", one axis at a time (-: the scenario's value)"
                  : s.sweep_design == SweepDesign::Zipped   ? ", zipped (the axes' values position by position)"
                                                            : "");
  t += fmt::format("trace         {}\n\n", trace_source);
  std::string header = "  point";
  for (const auto& axis : s.sweep) header += fmt::format("  {:>24}", axis.key);
  t += header + "      identity      scenario          gain  gain interval\n";
  for (std::size_t i = 0; i < sweep.rows.size(); ++i) t += sweep_line(i, sweep.rows[i]) + "\n";
  if (const auto best = sweep.gaining_best())
    t += fmt::format("\nbest point    {} ({}): scenario runtime {}\n", *best, sweep.rows[*best].name,
                     seconds(sweep.rows[*best].scenario));
  else if (sweep.best)
    t += "\nbest point    none: no point gains more than 0.1 % of its identity runtime\n";
  if (const auto reach = sweep.platform_reach(s)) {
    t += "platform      " + platform_reach_text(*reach) + "\n";
    if (std::string w = platform_reach_warning(*reach); !w.empty()) t += "warning: " + w + "\n";
  }
  return t;
}

}  // namespace wisp
