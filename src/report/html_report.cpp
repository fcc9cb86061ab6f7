// report.html (html_report.hpp): the page template (src/report/html/template.html) filled with d3,
// the report's script and style sheet, and the data as JSON. Timelines are columnar and integer
// (nanoseconds, each interval as the gap since the previous one's end and its duration), call-path
// names once per timeline, so that a trace of a million events stays a few megabytes.
#include "wisp/report/html_report.hpp"
#include "wisp/report/gain_interval_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

#include "report/html_assets.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/report/suggest_report.hpp"
#include "wisp/report/trace_analysis_report.hpp"
#include "wisp/scenario/platform_reach.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

namespace {

long long ns(double seconds) { return std::llround(seconds * 1e9); }

template <typename T, typename F>
void append_array(std::string& out, std::string_view key, const std::vector<T>& values, F value) {
  out += fmt::format("\"{}\":[", key);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    fmt::format_to(std::back_inserter(out), "{}", value(i));
  }
  out += ']';
}

void append_lane(std::string& out, const TimelineLane& lane) {
  out += fmt::format("{{\"name\":{},\"rank\":{},\"master\":{},", json_text(nlohmann::json(lane.name)), lane.rank,
                     lane.master ? 1 : 0);
  append_array(out, "g", lane.start, [&](std::size_t i) { return ns(lane.start[i]) - (i ? ns(lane.end[i - 1]) : 0); });
  out += ',';
  append_array(out, "d", lane.start, [&](std::size_t i) { return ns(lane.end[i]) - ns(lane.start[i]); });
  out += ',';
  append_array(out, "l", lane.label, [&](std::size_t i) { return lane.label[i]; });
  out += ',';
  if (lane.master)
    append_array(out, "w", lane.wait, [&](std::size_t i) { return ns(lane.wait[i]); });
  else
    out += "\"w\":[]";
  if (!lane.members.empty()) {
    out += ',';
    append_array(out, "ranks", lane.members, [&](std::size_t i) { return lane.members[i]; });
  }
  out += '}';
}

void append_critical_path(std::string& out, const std::vector<PathSegment>& path) {
  out += "\"critical\":{";
  append_array(out, "r", path, [&](std::size_t i) { return path[i].rank; });
  out += ',';
  append_array(out, "g", path, [&](std::size_t i) { return ns(path[i].start) - (i ? ns(path[i - 1].end) : 0); });
  out += ',';
  append_array(out, "d", path, [&](std::size_t i) { return ns(path[i].end) - ns(path[i].start); });
  out += '}';
}

void append_messages(std::string& out, const std::vector<TimelineMessage>& m) {
  out += "\"messages\":{";
  append_array(out, "f", m, [&](std::size_t i) { return m[i].sender; });
  out += ',';
  append_array(out, "t", m, [&](std::size_t i) { return m[i].receiver; });
  out += ',';
  append_array(out, "s", m, [&](std::size_t i) { return ns(m[i].send) - (i ? ns(m[i - 1].send) : 0); });
  out += ',';
  append_array(out, "r", m, [&](std::size_t i) { return ns(m[i].recv) - ns(m[i].send); });
  out += '}';
}

void append_split(std::string& out, const std::vector<RankSplit>& s) {
  out += "\"split\":{";
  append_array(out, "c", s, [&](std::size_t i) { return fmt::format("{:.9g}", s[i].computation); });
  out += ',';
  append_array(out, "m", s, [&](std::size_t i) { return fmt::format("{:.9g}", s[i].mpi); });
  out += ',';
  append_array(out, "w", s, [&](std::size_t i) { return fmt::format("{:.9g}", s[i].waiting); });
  out += '}';
}

// The timeline's JSON in pieces (a lane at a time), each handed to `put`: a large trace's data is
// never one string.
template <typename Put>
void write_timeline_json(const NamedTimeline& named, Put&& put) {
  const Timeline& t = *named.timeline;
  nlohmann::json names = nlohmann::json::array(), shorter = nlohmann::json::array(), mpi = nlohmann::json::array();
  for (const TimelineLabel& l : t.labels) {
    names.push_back(l.name);
    shorter.push_back(l.short_name.empty() ? l.name : l.short_name);
    mpi.push_back(l.mpi ? 1 : 0);
  }
  std::string out = fmt::format("{{\"name\":{},\"start\":{},\"end\":{},\"names\":{},\"short\":{},\"mpi\":{},",
                                json_text(nlohmann::json(named.name)), ns(t.start), ns(t.end), json_text(names),
                                json_text(shorter), json_text(mpi));
  out += "\"lanes\":[";
  for (std::size_t i = 0; i < t.lanes.size(); ++i) {
    if (i) out += ',';
    append_lane(out, t.lanes[i]);
    put(out);
    out.clear();
  }
  out += "],";
  append_critical_path(out, t.critical_path);
  out += ',';
  append_messages(out, t.messages);
  out += ',';
  append_split(out, t.ranks);
  out += '}';
  put(out);
}

nlohmann::json pop_json(const std::string& name, const PopFactors& f) {
  return {{"name", name},
          {"load_balance", f.load_balance},
          {"serialisation", f.serialisation},
          {"transfer", f.transfer},
          {"communication_efficiency", f.communication_efficiency},
          {"parallel_efficiency", f.parallel_efficiency},
          {"elapsed", f.elapsed}};
}

// `<` only occurs inside JSON strings, where \u003c is the same character: no `</script>` ends the
// data early. Escapes in place; copies only if there is a `<`.
void make_script_safe(std::string& json) {
  if (json.find('<') == std::string::npos) return;
  std::string out;
  out.reserve(json.size() + 5 * static_cast<std::size_t>(std::count(json.begin(), json.end(), '<')));
  for (char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  json.swap(out);
}

// The page, written to `out` as it is made: template markers {{NAME}} replaced once each (inserted
// text never scanned again), the data (DATA) piece by piece.
void write_page(std::ostream& out, const nlohmann::json& report, const std::vector<NamedTimeline>& timelines) {
  const std::string title = report.value("title", std::string("wisp report"));
  std::string escaped_title;
  for (char c : title)
    escaped_title += c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
  const std::map<std::string, std::string_view> parts{{"TITLE", escaped_title},
                                                      {"CSS", html_assets::report_css()},
                                                      {"D3", html_assets::d3_js()},
                                                      {"JS", html_assets::report_js()}};
  const auto put = [&](std::string& piece) {
    make_script_safe(piece);
    out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  };
  const auto write_data = [&] {
    std::string head = "{\"report\":" + json_text(report) + ",\"timelines\":[";
    put(head);
    for (std::size_t i = 0; i < timelines.size(); ++i) {
      if (i) out << ',';
      write_timeline_json(timelines[i], put);
    }
    out << "]}";
  };
  const std::string_view page = html_assets::template_html();
  std::size_t at = 0;
  while (true) {
    const std::size_t open = page.find("{{", at);
    const std::size_t close = open == std::string_view::npos ? open : page.find("}}", open);
    if (close == std::string_view::npos) break;
    out << page.substr(at, open - at);
    const std::string name(page.substr(open + 2, close - open - 2));
    if (name == "DATA") {
      write_data();
    } else {
      const auto it = parts.find(name);
      out << (it == parts.end() ? page.substr(open, close + 2 - open) : it->second);
    }
    at = close + 2;
  }
  out << page.substr(at);
}

std::string page(const nlohmann::json& report, const std::vector<NamedTimeline>& timelines) {
  std::ostringstream out;
  write_page(out, report, timelines);
  return std::move(out).str();
}

nlohmann::json callpaths_json(const std::vector<CallpathComparison>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const CallpathComparison& c : rows)
    out.push_back({{"metric", c.metric},
                   {"callpath", c.callpath.empty() ? "(program)" : c.callpath},
                   {"short_name", c.callpath.empty() ? "(program)" : c.short_name},
                   {"source", c.source},
                   {"measured", c.measured},
                   {"before", c.before},
                   {"after", c.after}});
  return out;
}

}  // namespace

namespace {

nlohmann::json point_page_json(const Scenario& s, const std::string& trace_source, const PointEvaluation& p) {
  const PointResult& r = p.result;
  nlohmann::json j = {
      {"kind", "point"},
      {"title", s.name},
      {"description", s.description},
      {"file", s.file.string()},
      {"trace", trace_source},
      {"ranks", p.measured_trace.rank_count()},
      {"events", p.measured_trace.event_count()},
      {"platform", r.platform},
      {"scenario_platform", r.scenario_platform},
      {"costs", r.costs},
      {"runtimes", {{"measured", r.measured}, {"identity", r.identity}, {"scenario", r.scenario}}},
      {"gain", {{"seconds", r.gain()}, {"percent", r.gain_percent()}}},
      {"gain_interval", gain_interval_json(r.interval)},
      {"interval", interval_text(r.interval)},
      {"kept_residual_share", r.kept_residual_share ? nlohmann::json(*r.kept_residual_share) : nlohmann::json(nullptr)},
      {"identity_error", r.identity_error()},
      {"warnings", r.warnings},
      {"callpaths", callpaths_json(p.callpaths)}};
  if (r.platform_reach) j["platform_reach"] = platform_reach_text(*r.platform_reach);
  j["ideal_networks"] = ideal_network_lines(r.pop_ideal_network, r.infinitely_fast_network, r.identity);
  j["transforms"] = nlohmann::json::array();
  for (const TransformEffect& e : r.effects)
    j["transforms"].push_back(
        {{"description", e.description}, {"visits", e.visits}, {"before", e.before}, {"after", e.after}});
  j["pop"] = nlohmann::json::array();
  if (p.measured.pop && p.identity.pop && p.scenario.pop) {
    j["pop"].push_back(pop_json("measured", p.measured.pop->whole));
    j["pop"].push_back(pop_json("identity", p.identity.pop->whole));
    j["pop"].push_back(pop_json("scenario", p.scenario.pop->whole));
  }
  j["communication"] = {{"measured", communication_json(p.measured.communication)},
                        {"scenario", communication_json(p.scenario.communication)}};
  return j;
}

}  // namespace

std::string point_html(const Scenario& s, const std::string& trace_source, const PointEvaluation& p,
                       const std::vector<NamedTimeline>& timelines) {
  return page(point_page_json(s, trace_source, p), timelines);
}

void write_point_html(std::ostream& out, const Scenario& s, const std::string& trace_source, const PointEvaluation& p,
                      const std::vector<NamedTimeline>& timelines, const std::string& timeline_note) {
  nlohmann::json j = point_page_json(s, trace_source, p);
  if (!timeline_note.empty()) j["timeline_note"] = timeline_note;
  write_page(out, j, timelines);
}

std::string sweep_html(const Scenario& s, const std::string& trace_source, const SweepResult& sweep) {
  nlohmann::json j = {{"kind", "sweep"},
                      {"title", s.name},
                      {"description", s.description},
                      {"file", s.file.string()},
                      {"trace", trace_source}};
  j["axes"] = nlohmann::json::array();
  for (const SweepAxis& a : s.sweep) j["axes"].push_back(a.key);
  j["rows"] = nlohmann::json::array();
  for (const SweepRow& r : sweep.rows) {
    nlohmann::json row = {{"name", r.name}, {"values", r.values}};
    if (!r.error.empty())
      row["error"] = r.error;
    else
      row.update({{"measured", r.measured},
                  {"identity", r.identity},
                  {"scenario", r.scenario},
                  {"gain", r.gain()},
                  {"percent", r.gain_percent()},
                  {"identity_error", r.identity_error()},
                  {"gain_interval", gain_interval_json(r.interval_low, r.interval_high)}});
    j["rows"].push_back(row);
  }
  if (const auto best = sweep.gaining_best()) j["best"] = *best;
  j["warnings"] = nlohmann::json::array();
  if (sweep.best && !sweep.gaining_best())
    j["warnings"].push_back("no point gains more than 0.1 % of its identity runtime: no best point");
  if (const auto reach = sweep.platform_reach(s)) {
    j["warnings"].push_back(platform_reach_text(*reach));
    if (std::string w = platform_reach_warning(*reach); !w.empty()) j["warnings"].push_back(w);
  }
  return page(j, {});
}

std::string suggest_html(const SuggestResult& r) {
  nlohmann::json j = suggest_json(r);
  j.update({{"kind", "suggest"}, {"title", "wisp suggest: " + r.trace}});
  return page(j, {});
}

namespace {

// The metrics a Scalasca user opens first, grouped as Cube shows them: per metric of the wait
// states, the critical path and the delay costs, its `top` call paths by total with the busiest rank
// (and every rank's value up to 256 ranks, for the page's small bars).
nlohmann::json analysis_tables(const TraceSummary& trace, const TraceAnalysis& a, std::size_t top = 10) {
  const std::vector<std::string> names = callpath_display_names(trace.defs);
  const bool per_rank = trace.rank_count() <= 256;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [kind, title] : {std::pair{AnalysisKind::WaitStates, "Wait states"},
                                    std::pair{AnalysisKind::CriticalPath, "Critical path and imbalance"},
                                    std::pair{AnalysisKind::Delays, "Delay costs (root causes of waiting)"}}) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricInfo* info : metrics_of(kind)) {
      if (info->unit != "sec") continue;
      std::map<CallpathId, std::vector<double>> rows;  // call path -> value per rank
      for (const MetricRecord& r : a.table.records)
        if (a.table.metrics[r.metric] == info->name && r.rank < trace.rank_count()) {
          auto& v = rows[r.callpath];
          v.resize(trace.rank_count());
          v[r.rank] += r.value;
        }
      if (rows.empty()) continue;
      std::vector<std::pair<double, CallpathId>> order;
      for (const auto& [cp, v] : rows) order.emplace_back(std::accumulate(v.begin(), v.end(), 0.0), cp);
      std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
      nlohmann::json table = nlohmann::json::array();
      double sum = 0;
      for (const auto& [total, cp] : order) sum += total;
      for (std::size_t k = 0; k < order.size() && k < top; ++k) {
        const auto& [total, cp] = order[k];
        const std::vector<double>& v = rows[cp];
        const auto busiest = std::max_element(v.begin(), v.end());
        const bool root = cp == kNone || cp >= names.size();
        nlohmann::json row = {{"callpath", root ? "(program)" : trace.defs.callpath_name(cp)},
                              {"short_name", root ? "(program)" : names[cp]},
                              {"source", root ? "" : source_location(trace.defs.region_of(cp))},
                              {"total", total},
                              {"max", *busiest},
                              {"max_rank", busiest - v.begin()}};
        if (per_rank) row["ranks"] = v;
        table.push_back(row);
      }
      metrics.push_back({{"metric", info->name},
                         {"description", info->description},
                         {"total", sum},
                         {"call_paths", order.size()},
                         {"rows", table}});
    }
    if (!metrics.empty()) groups.push_back({{"title", title}, {"metrics", metrics}});
  }
  return groups;
}

nlohmann::json analysis_report(const std::string& trace_path, const TraceSummary& trace, const TraceAnalysis& a) {
  nlohmann::json j = {{"kind", "analysis"},
                      {"title", "analysis of " + trace_path},
                      {"trace", trace_path},
                      {"ranks", trace.rank_count()},
                      {"events", trace.event_count()},
                      {"runtimes", {{"measured", trace.span()}}},
                      {"critical_path_length", a.wait_paths.critical_path.length}};
  j["pop"] = nlohmann::json::array();
  if (a.pop) j["pop"].push_back(pop_json("measured", a.pop->whole));
  j["communication"] = {{"measured", communication_json(a.communication)}};
  j["analysis_tables"] = analysis_tables(trace, a);
  return j;
}

}  // namespace

std::string analysis_html(const std::string& trace_path, const TraceSummary& trace, const TraceAnalysis& a,
                          const Timeline& timeline) {
  return page(analysis_report(trace_path, trace, a), {{"measured", &timeline}});
}

void write_analysis_html(std::ostream& out, const std::string& trace_path, const TraceSummary& trace,
                         const TraceAnalysis& a, const Timeline& timeline, const std::string& timeline_note) {
  nlohmann::json j = analysis_report(trace_path, trace, a);
  if (!timeline_note.empty()) j["timeline_note"] = timeline_note;
  write_page(out, j, {{"measured", &timeline}});
}

}  // namespace wisp
