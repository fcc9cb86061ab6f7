// The tidy metric table. See metric_table.hpp.
#include "wisp/analysis/metric_table.hpp"

#include <algorithm>

namespace wisp {

std::uint32_t metric_index(MetricTable& table, std::string_view metric) {
  const auto it = std::find(table.metrics.begin(), table.metrics.end(), metric);
  if (it != table.metrics.end()) return static_cast<std::uint32_t>(it - table.metrics.begin());
  table.metrics.emplace_back(metric);
  return static_cast<std::uint32_t>(table.metrics.size() - 1);
}

void add_record(MetricTable& table, std::string_view metric, CallpathId callpath, Rank rank, double value) {
  if (value == 0) return;
  table.records.push_back(MetricRecord{metric_index(table, metric), callpath, rank, value});
}

void add_matrix(MetricTable& table, std::string_view metric, const CallpathMatrix& values) {
  const std::uint32_t m = metric_index(table, metric);
  for (std::uint32_t s = 0; s < values.slots; ++s)
    for (Rank r = 0; r < values.ranks; ++r) {
      const double v = values.at(s, r);
      if (v != 0) table.records.push_back(MetricRecord{m, callpath_of_slot(s), r, v});
    }
}

double metric_value(const MetricTable& table, std::string_view metric, CallpathId callpath, Rank rank) {
  const auto it = std::find(table.metrics.begin(), table.metrics.end(), metric);
  if (it == table.metrics.end()) return 0;
  const auto m = static_cast<std::uint32_t>(it - table.metrics.begin());
  double sum = 0;
  for (const MetricRecord& rec : table.records)
    if (rec.metric == m && (callpath == kAny || rec.callpath == callpath) && (rank == kAny || rec.rank == rank))
      sum += rec.value;
  return sum;
}

std::string metric_callpath_name(const Definitions& defs, CallpathId callpath) {
  return callpath == kNone ? std::string() : defs.callpath_name(callpath);
}

}  // namespace wisp
