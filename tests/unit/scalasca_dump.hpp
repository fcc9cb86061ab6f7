// Scalasca 2.6 result dumps (tests/data/.../scalasca.tsv.gz: metric, cnode id, call path
// under the program-name root, rank, thread, value; call-path exclusive) and the L1 error of
// wisp's values against them. Shared by the conformance test and tests/perf/scalasca_conformance.
#pragma once

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "wisp/analysis/wait_path_analysis.hpp"

namespace wisp::test {

using MetricKey = std::tuple<std::string, std::string, Rank>;  // metric, call path, rank
using MetricValues = std::map<MetricKey, double>;

// Values by (metric, call path without the program-name root, rank), threads summed.
inline MetricValues read_scalasca_dump(const std::filesystem::path& gz) {
  MetricValues out;
  FILE* in = popen(("gzip -dc '" + gz.string() + "'").c_str(), "r");
  if (!in) throw std::runtime_error("cannot read " + gz.string());
  char buffer[8192];
  bool header = true;
  while (std::fgets(buffer, sizeof buffer, in)) {
    if (header) {
      header = false;
      continue;
    }
    std::stringstream s(buffer);
    std::string metric, cnode, path, rank, thread, value;
    std::getline(s, metric, '\t');
    std::getline(s, cnode, '\t');
    std::getline(s, path, '\t');
    std::getline(s, rank, '\t');
    std::getline(s, thread, '\t');
    std::getline(s, value, '\n');
    const auto slash = path.find('/');
    path = slash == std::string::npos ? "" : path.substr(slash + 1);
    out[{metric, path, static_cast<Rank>(std::stoul(rank))}] += std::stod(value);
  }
  pclose(in);
  return out;
}

inline MetricValues wisp_values(const Trace& t, const MetricTable& table) {
  MetricValues out;
  for (const MetricRecord& r : table.records)
    out[{table.metrics[r.metric], metric_callpath_name(t.defs, r.callpath), r.rank}] += r.value;
  return out;
}

struct MetricError {
  double reference_total = 0;  // Σ |Scalasca|
  double distance = 0;         // Σ |wisp − Scalasca|
  double l1() const { return reference_total > 0 ? distance / reference_total : (distance > 0 ? 1.0 : 0.0); }
};

// Per metric both report: Σ over (call path, rank) of |wisp − Scalasca| and of |Scalasca|.
inline std::map<std::string, MetricError> compare_metrics(const MetricValues& reference, const MetricValues& mine) {
  std::set<std::string> theirs;
  for (const auto& [k, v] : reference) theirs.insert(std::get<0>(k));
  std::map<std::string, MetricError> out;
  for (const auto& [k, v] : reference) {
    const std::string& metric = std::get<0>(k);
    const auto m = mine.find(k);
    out[metric].reference_total += std::abs(v);
    out[metric].distance += std::abs((m == mine.end() ? 0.0 : m->second) - v);
  }
  for (const auto& [k, v] : mine)
    if (theirs.count(std::get<0>(k)) && !reference.count(k)) out[std::get<0>(k)].distance += std::abs(v);
  std::set<std::string> shared;
  for (const auto& [k, v] : mine) shared.insert(std::get<0>(k));
  for (auto it = out.begin(); it != out.end();) it = shared.count(it->first) ? std::next(it) : out.erase(it);
  return out;
}

}  // namespace wisp::test
