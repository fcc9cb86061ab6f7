// Reports of the PAG analyses. See pag_report.hpp.
#include "wisp/report/pag_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace wisp {

std::string activity_callpath_name(const Definitions& defs, CallpathId callpath) {
  if (callpath == kLaunchCallpath) return "(launch)";
  if (callpath == kNone || callpath >= defs.callpaths.size()) return "(no region)";
  return defs.callpath_name(callpath);
}

namespace {

double percent(Ticks part, Ticks whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

nlohmann::json pag_json(const TraceSummary& trace, const PagAnalysis& a) {
  const Pag& pag = a.pag;
  const Ticks d_cp = a.paths.critical_length;
  nlohmann::json j;
  j["critical_path_length"] = pag.seconds(d_cp);
  j["nc_percent"] = a.paths.last_nc_percent();
  j["more_available"] = a.paths.more_available;
  j["paths"] = nlohmann::json::array();
  for (const NearCriticalPath& p : a.paths.paths) {
    nlohmann::json path;
    path["duration"] = pag.seconds(p.duration);
    path["nc_percent"] = percent(d_cp - p.duration, d_cp);
    path["callpaths"] = nlohmann::json::object();
    for (const auto& [cp, d] : p.callpaths)
      if (d > 0) path["callpaths"][activity_callpath_name(trace.defs, cp)] = pag.seconds(d);
    j["paths"].push_back(std::move(path));
  }
  j["distinct_paths"] = nlohmann::json::array();
  for (const NearCriticalPath& p : a.distinct.paths) {
    nlohmann::json path = {{"duration", pag.seconds(p.duration)},
                           {"nc_percent", percent(d_cp - p.duration, d_cp)},
                           {"variants", p.variants},
                           {"callpaths", nlohmann::json::object()}};
    for (const auto& [cp, d] : p.callpaths)
      if (d > 0) path["callpaths"][activity_callpath_name(trace.defs, cp)] = pag.seconds(d);
    j["distinct_paths"].push_back(std::move(path));
  }
  j["distinct_detour"] = kDistinctDetour * pag.seconds(d_cp);
  j["anomalies"] = {{"receive_before_send", pag.anomalies.receive_before_send},
                    {"inconsistent_collectives", pag.anomalies.inconsistent_collectives},
                    {"cycle_activities", pag.anomalies.cycle_activities}};
  return j;
}

nlohmann::json mbm_json(const TraceSummary& trace, const PagAnalysis& a) {
  nlohmann::json rows = nlohmann::json::array();
  for (const MbmRow& r : a.mbm)
    rows.push_back({{"callpath", activity_callpath_name(trace.defs, r.callpath)},
                    {"critical_path", a.pag.seconds(r.critical_path)},
                    {"mbm_k", a.pag.seconds(r.mbm_k)},
                    {"mbm_all", a.pag.seconds(r.mbm_all)}});
  return rows;
}

std::string near_critical_text(const TraceSummary& trace, const PagAnalysis& a, std::size_t max_paths) {
  const Ticks d_cp = a.paths.critical_length;
  const NearCriticalPaths& d = a.distinct.paths.empty() ? a.paths : a.distinct;
  std::string out = fmt::format(
      "Near-critical paths (paper 001): {} distinct path(s), critical path {:.6f} s, the last within {:.2f} %{}; "
      "detours shorter than {:.6f} s ({} % of it) are variants of the path they leave\n",
      d.paths.size(), a.pag.seconds(d_cp), d.last_nc_percent(), d.more_available ? " (more available)" : "",
      a.pag.seconds(d_cp) * kDistinctDetour, 100 * kDistinctDetour);
  if (&d != &a.paths)
    out += fmt::format("  (the MBM uses paper 001's {} paths, the last within {:.4f} %: report.json \"paths\")\n",
                       a.paths.paths.size(), a.paths.last_nc_percent());
  out += fmt::format("  {:>5}  {:>14}  {:>8}  {:>9}  {}\n", "#", "duration [s]", "nc %", "variants",
                     "largest call paths on the path [s]");
  const std::size_t shown = std::min(max_paths, d.paths.size());
  for (std::size_t j = 0; j < shown; ++j) {
    const NearCriticalPath& p = d.paths[j];
    auto top = p.callpaths;
    std::sort(top.begin(), top.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    std::string parts;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, top.size()); ++i)
      if (top[i].second > 0)
        parts += fmt::format("{}{} {:.6f}", parts.empty() ? "" : ", ", activity_callpath_name(trace.defs, top[i].first),
                             a.pag.seconds(top[i].second));
    out += fmt::format("  {:>5}  {:>14.6f}  {:>8.3f}  {:>9}  {}\n", j + 1, a.pag.seconds(p.duration),
                       percent(d_cp - p.duration, d_cp), p.variants, parts);
  }
  if (shown < d.paths.size()) out += fmt::format("  ... {} more paths\n", d.paths.size() - shown);
  return out;
}

std::string mbm_text(const TraceSummary& trace, const PagAnalysis& a, std::size_t top) {
  const Ticks d_cp = a.paths.critical_length;
  std::string out = fmt::format("Maximum Benefit Metric (paper 001 §5): d_cp = {:.6f} s, MBM_k over k = {} path(s)\n",
                                a.pag.seconds(d_cp), a.paths.paths.size());
  out += fmt::format("  {:>12} {:>8}  {:>12} {:>8}  {:>12} {:>8}  {}\n", "critical [s]", "%", "MBM_k [s]", "%",
                     "MBM_all [s]", "%", "call path");
  const std::size_t shown = std::min(top, a.mbm.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const MbmRow& r = a.mbm[i];
    out += fmt::format("  {:>12.6f} {:>7.2f}%  {:>12.6f} {:>7.2f}%  {:>12.6f} {:>7.2f}%  {}\n",
                       a.pag.seconds(r.critical_path), percent(r.critical_path, d_cp), a.pag.seconds(r.mbm_k),
                       percent(r.mbm_k, d_cp), a.pag.seconds(r.mbm_all), percent(r.mbm_all, d_cp),
                       activity_callpath_name(trace.defs, r.callpath));
  }
  if (shown < a.mbm.size()) out += fmt::format("  ... {} more call paths\n", a.mbm.size() - shown);
  return out;
}

}  // namespace wisp
