// `wisp analyze` output of all analyses. See trace_analysis_report.hpp.
#include "wisp/report/trace_analysis_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/error.hpp"
#include "wisp/report/analysis_report.hpp"
#include "wisp/report/pag_report.hpp"
#include "wisp/report/pop_report.hpp"
#include "wisp/report/wait_estimate_report.hpp"

namespace wisp {

namespace {

nlohmann::json threads_json(const TraceSummary& trace, const std::vector<ThreadTime>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const ThreadTime& t : rows)
    out.push_back({{"rank", t.rank},
                   {"location", trace.defs.ranks[t.rank].others[t.location].name},
                   {"callpath", t.callpath},
                   {"time", t.seconds}});
  return out;
}

// The rows with the most time first.
std::string threads_text(const TraceSummary& trace, const std::vector<ThreadTime>& rows, std::size_t top) {
  std::vector<const ThreadTime*> sorted;
  for (const ThreadTime& t : rows) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const ThreadTime* a, const ThreadTime* b) { return a->seconds > b->seconds; });
  std::string out = "Other threads and streams (hybrid): exclusive time per call path\n";
  for (std::size_t i = 0; i < sorted.size() && i < top; ++i)
    out += fmt::format("  {:>12.6f} s  rank {} {:<16} {}\n", sorted[i]->seconds, sorted[i]->rank,
                       trace.defs.ranks[sorted[i]->rank].others[sorted[i]->location].name, sorted[i]->callpath);
  if (sorted.size() > top) out += fmt::format("  ... {} more rows\n", sorted.size() - top);
  return out;
}

}  // namespace

nlohmann::json trace_analysis_json(const TraceSummary& trace, const std::string& source, const TraceAnalysis& a,
                                   bool detail) {
  nlohmann::json j = analysis_json(trace, source, a.wait_paths, a.table, detail);
  if (!a.threads.empty()) j["threads"] = threads_json(trace, a.threads);
  if (a.pag) {
    j["pag"] = pag_json(trace, *a.pag);
    j["mbm"] = mbm_json(trace, *a.pag);
  }
  if (a.waits) j["wait_estimate"] = wait_estimate_json(trace, *a.waits);
  if (a.pop) j["pop"] = pop_json(*a.pop);
  j["communication"] = communication_json(a.communication);
  return j;
}

nlohmann::json communication_json(const CommMatrix& m) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const CommPair& p : m.pairs) pairs.push_back({p.from, p.to, p.messages, p.bytes});
  return {{"ranks", m.ranks},
          {"messages", m.messages},
          {"bytes", m.bytes},
          {"pairs_columns", {"from", "to", "messages", "bytes"}},
          {"pairs", pairs}};
}

std::string trace_analysis_text(const TraceSummary& trace, const std::string& source, const TraceAnalysis& a,
                                std::size_t top, bool detail) {
  std::string out = analysis_text(trace, source, a.wait_paths, a.table, top);
  const auto section = [&out](const std::string& text) { (out += '\n') += text; };
  if (!a.threads.empty()) section(threads_text(trace, a.threads, top));
  if (a.pag) {
    section(near_critical_text(trace, *a.pag, top));
    section(mbm_text(trace, *a.pag, top));
  }
  if (a.waits) section(wait_estimate_text(trace, *a.waits));
  if (a.pop) section(pop_text(*a.pop, top));
  if (detail) section(metric_tree_text(a.table));
  return out;
}

std::string metric_catalogue_text() {
  std::string out =
      fmt::format("{:<32} {:<26} {:<6} {:<14} {}\n", "metric", "parent", "unit", "analysis", "description");
  for (const MetricInfo& m : metric_catalogue())
    out += fmt::format("{:<32} {:<26} {:<6} {:<14} {}\n", m.name, m.parent.empty() ? "-" : m.parent, m.unit,
                       analysis_key(m.analysis), m.description);
  return out;
}

std::string metric_description_text(std::string_view metric) {
  const MetricInfo* m = find_metric(metric);
  if (!m) {
    std::string near;  // the catalogue's names that contain the one asked for
    for (const MetricInfo& x : metric_catalogue())
      if (x.name.find(metric) != std::string_view::npos) near += fmt::format("{}{}", near.empty() ? "" : ", ", x.name);
    throw Error(fmt::format("unknown metric '{}'{} (wisp analyze --list-metrics lists them)", metric,
                            near.empty() ? "" : " (did you mean " + near + "?)"));
  }
  std::string out =
      fmt::format("{} ({}): {}\n  parent: {}, unit: {}, analysis: {}\n", m->name, m->display, m->description,
                  m->parent.empty() ? "-" : m->parent, m->unit, analysis_key(m->analysis));
  const MetricTexts t = metric_texts(m->name);
  const auto paragraphs = [&out](const char* title, std::string_view text) {
    if (text.empty()) return;
    out += fmt::format("\n{}\n", title);
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find("\n\n", at), text.size());
      out += fmt::format("  {}\n", text.substr(at, end - at));
      at = end + 2;
    }
  };
  paragraphs("Description (Scalasca)", t.description);
  paragraphs("Diagnosis (Scalasca)", t.diagnosis);
  return out;
}

}  // namespace wisp
