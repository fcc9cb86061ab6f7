// `wisp analyze` output as JSON and text. See analysis_report.hpp.
#include "wisp/report/analysis_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include <algorithm>
#include <map>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/trace/rank_set.hpp"

namespace wisp {

nlohmann::json metrics_json(const TraceSummary& trace, const MetricTable& table) {
  nlohmann::json out = nlohmann::json::array();
  std::vector<std::string> names(trace.defs.callpaths.size() + 1);
  for (std::uint32_t s = 1; s < names.size(); ++s) names[s] = trace.defs.callpath_name(callpath_of_slot(s));
  for (const MetricRecord& r : table.records)
    out.push_back({{"metric", table.metrics[r.metric]},
                   {"callpath", names[slot_of(r.callpath)]},
                   {"rank", r.rank},
                   {"value", r.value}});
  return out;
}

nlohmann::json segments_json(const TraceSummary& trace, const std::vector<PathSegment>& segments) {
  nlohmann::json out = nlohmann::json::array();
  for (const PathSegment& s : segments)
    out.push_back({{"rank", s.rank},
                   {"callpath", metric_callpath_name(trace.defs, s.callpath)},
                   {"start", s.start},
                   {"end", s.end}});
  return out;
}

nlohmann::json analysis_json(const TraceSummary& trace, const std::string& source, const WaitPathAnalysis& a,
                             const MetricTable& table, bool detail) {
  nlohmann::json j;
  j["trace"] = source;
  j["ranks"] = trace.rank_count();
  j["runtime"] = trace.span();
  j["metrics"] = metrics_json(trace, table);
  j["critical_path"] = {{"length", a.critical_path.length},
                        {"start_rank", a.critical_path.end_rank},
                        {"stopped_early", a.critical_path.stopped_early != 0},
                        {"segment_count", a.critical_path.segments.size()}};
  if (detail) j["critical_path"]["segments"] = segments_json(trace, a.critical_path.segments);
  const DelayCosts& d = a.delays;
  j["delay_accounting"] = {{"rules", to_string(d.rules)},     {"total_wait", d.total_wait},
                           {"short_term", d.short_sum},       {"long_term", d.long_sum},
                           {"unattributed", d.unattributed},  {"unattributed_waits", d.unattributed_waits},
                           {"cycles_broken", d.cycles_broken}};
  nlohmann::json parts = nlohmann::json::array();
  for (std::uint32_t p = 0; p < a.partitions.names.size(); ++p) {
    std::vector<Rank> ranks;
    for (Rank r = 0; r < a.partitions.of_rank.size(); ++r)
      if (a.partitions.of_rank[r] == p) ranks.push_back(r);
    parts.push_back({{"name", a.partitions.names[p]}, {"ranks", format_rank_set(ranks)}});
  }
  j["partitions"] = {{"origin", a.partitions.origin}, {"list", std::move(parts)}};
  return j;
}

namespace {

struct Row {
  CallpathId callpath = kNone;
  double total = 0;
  double max = 0;
  Rank max_rank = kNone;
};

// Per call path: total over ranks and the rank with the largest value, largest totals first.
std::vector<Row> rows_of(const MetricTable& table, std::string_view metric) {
  const auto it = std::find(table.metrics.begin(), table.metrics.end(), metric);
  if (it == table.metrics.end()) return {};
  const auto m = static_cast<std::uint32_t>(it - table.metrics.begin());
  std::map<CallpathId, Row> by;
  for (const MetricRecord& r : table.records) {
    if (r.metric != m) continue;
    Row& row = by[r.callpath];
    row.callpath = r.callpath;
    row.total += r.value;
    if (row.max_rank == kNone || r.value > row.max) {
      row.max = r.value;
      row.max_rank = r.rank;
    }
  }
  std::vector<Row> rows;
  for (const auto& [cp, row] : by) rows.push_back(row);
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.total > b.total; });
  return rows;
}

std::string name_of(const TraceSummary& trace, CallpathId cp) {
  return cp == kNone ? std::string("(program)") : trace.defs.callpath_name(cp);
}

void metric_block(std::string& out, const TraceSummary& trace, const MetricTable& table, std::string_view metric,
                  std::size_t top) {
  const std::vector<Row> rows = rows_of(table, metric);
  if (rows.empty()) return;
  out += fmt::format("  {}\n", metric);
  for (std::size_t i = 0; i < rows.size() && i < top; ++i)
    out += fmt::format("    {:>12.6f} s  max {:>12.6f} s on rank {:<5} {}\n", rows[i].total, rows[i].max,
                       rows[i].max_rank, name_of(trace, rows[i].callpath));
  if (rows.size() > top) out += fmt::format("    ... {} more call paths\n", rows.size() - top);
}

}  // namespace

std::string analysis_text(const TraceSummary& trace, const std::string& source, const WaitPathAnalysis& a,
                          const MetricTable& table, std::size_t top) {
  std::string out = fmt::format("{}: {} ranks, {} events, runtime {:.6f} s\n", source, trace.rank_count(),
                                trace.event_count(), trace.span());

  out += "\nWait states (waiting time summed over ranks; the rank waiting most)\n";
  std::size_t before = out.size();
  for (int k = 0; k < kWaitKindCount; ++k) metric_block(out, trace, table, metric_name(WaitKind(k)), top);
  for (std::string_view omp : {metric::kOmpIbarrierWait, metric::kOmpEbarrierWait, metric::kOmpIdleThreads})
    metric_block(out, trace, table, omp, top);  // hybrid traces
  if (out.size() == before) out += "  none\n";

  const CriticalPath& cp = a.critical_path;
  out += fmt::format("\nCritical path: {:.6f} s, {} segments, backward replay from rank {}{}\n", cp.length,
                     cp.segments.size(), cp.end_rank, cp.stopped_early ? " (stopped early: inconsistent trace)" : "");
  if (!cp.segments.empty() && trace.end_time() - cp.length > 0.5e-6)
    out += fmt::format(
        "  the other {:.6f} s of the {:.6f} s run: {:.6f} s before the path starts (rank {}'s first event), the "
        "rest waiting, which the path does not count\n",
        trace.end_time() - cp.length, trace.end_time(), cp.segments.front().start, cp.segments.front().rank);
  out += fmt::format("  {:>12} {:>12} {:>14} {:>12} {:>12}  {}\n", "critical_path", "imbalance", "perf_impact", "intra",
                     "inter", "call path");
  const std::vector<Row> rows = rows_of(table, metric::kCriticalPath);
  for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
    const CallpathId c = rows[i].callpath;
    out += fmt::format("  {:>12.6f} {:>12.6f} {:>14.6f} {:>12.6f} {:>12.6f}  {}\n", rows[i].total,
                       metric_value(table, metric::kCriticalPathImbalance, c),
                       metric_value(table, metric::kPerformanceImpact, c),
                       metric_value(table, metric::kIntraPartitionImbalance, c),
                       metric_value(table, metric::kInterPartitionImbalance, c), name_of(trace, c));
  }
  out += fmt::format("  partitions ({}):", a.partitions.origin);
  for (const auto& n : a.partitions.names) out += " [" + n + "]";
  out += "\n";

  const DelayCosts& d = a.delays;
  out += fmt::format("\nDelay costs ({} rules): {:.6f} s attributable waiting = {:.6f} short-term + {:.6f} long-term",
                     to_string(d.rules), d.total_wait, d.short_sum, d.long_sum);
  if (std::abs(d.unattributed) >= 0.5e-6 && d.unattributed_waits > 0)
    out += fmt::format(
        " + {:.6f} unattributed ({} wait states whose delayer had nothing to blame, with the costs "
        "they carry)",
        d.unattributed, d.unattributed_waits);
  else if (std::abs(d.unattributed) >= 0.5e-6)
    out += fmt::format(" + {:.6f} dropped where a long-term scale was clipped (Scalasca's rules)", d.unattributed);
  out += "\n";
  before = out.size();
  for (int k = 0; k < kDelayCategoryCount; ++k) {
    metric_block(out, trace, table, short_term_metric(WaitKind(k)), top);
    metric_block(out, trace, table, long_term_metric(WaitKind(k)), top);
  }
  if (out.size() == before) out += "  none\n";
  return out;
}

std::string metric_tree_text(const MetricTable& table) {
  std::vector<std::string_view> shown;  // the table's metrics and their ancestors
  for (const std::string& m : table.metrics)
    for (const MetricInfo* x = find_metric(m); x && x->unit != "ratio"; x = find_metric(x->parent))
      if (std::find(shown.begin(), shown.end(), x->name) == shown.end()) shown.push_back(x->name);
  std::string out = "Metrics (Scalasca's tree: totals over call paths and ranks)\n";
  const auto visit = [&](auto&& self, std::string_view parent, int depth) -> void {
    for (const MetricInfo& m : metric_catalogue()) {
      if (m.parent != parent || std::find(shown.begin(), shown.end(), m.name) == shown.end()) continue;
      const double total = metric_value(table, m.name);
      const std::string value =
          m.unit == "sec" ? fmt::format("{:.6f} s", total) : fmt::format("{:.0f} {}", total, m.unit);
      out += fmt::format("  {:<{}}{:<{}} {:>20}  {}\n", "", 2 * depth, m.name, 40 - 2 * depth, value, m.display);
      self(self, m.name, depth + 1);
    }
  };
  visit(visit, "", 0);
  return out;
}

}  // namespace wisp
