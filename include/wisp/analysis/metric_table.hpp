// The tidy result table every analysis fills: one record per (metric, call path, rank, value),
// metric = Scalasca's unique metric name ("mpi_latesender", "critical_path", ...), call path =
// region names from the outermost region down joined by "/" ("" is the program root), values
// call-path exclusive in seconds (counts for visits and *_count). Zero values are not stored.
// Later analyses (PAG, MBM, POP) and reports append their own metrics to the same table. Every
// metric name is declared in the catalogue (metric_catalogue.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/trace/definitions.hpp"

namespace wisp {

struct MetricRecord {
  std::uint32_t metric = 0;     // index into MetricTable::metrics
  CallpathId callpath = kNone;  // kNone: the program root
  Rank rank = kNone;
  double value = 0;
};

struct MetricTable {
  std::vector<std::string> metrics;  // metric names in the order they were first added
  std::vector<MetricRecord> records;
};

// Index of a metric name in the table (added if new).
std::uint32_t metric_index(MetricTable& table, std::string_view metric);
// Appends one record (nothing if value == 0).
void add_record(MetricTable& table, std::string_view metric, CallpathId callpath, Rank rank, double value);
// Appends every non-zero entry of a (call path, rank) matrix, call path by call path.
void add_matrix(MetricTable& table, std::string_view metric, const CallpathMatrix& values);
// Sum of the records of `metric` matching the call path and rank (kAny: every one).
inline constexpr std::uint32_t kAny = kNone - 1;
double metric_value(const MetricTable& table, std::string_view metric, CallpathId callpath = kAny, Rank rank = kAny);
// The table's call path naming: "" for the program root, else Definitions::callpath_name.
std::string metric_callpath_name(const Definitions& defs, CallpathId callpath);

}  // namespace wisp
