// Conformance figures against Scalasca 2.6 (not a test; run by hand, figures go into the README):
// for every trace in ../shared/traces with a Scalasca dump (scalasca.tsv.gz: metric, cnode id,
// call path under the program-name root, rank, thread, value; call-path exclusive), the L1 error
// Σ|wisp − Scalasca| / Σ|Scalasca| over (call path, rank) of every metric both report.
// Usage: scalasca_conformance [SHARED_TRACES_DIR] [--metric NAME]   (default ../shared/traces)
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "wisp/analysis/analyze.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

using Key = std::tuple<std::string, std::string, Rank>;  // metric, call path, rank

std::map<Key, double> read_dump(const fs::path& gz) {
  std::map<Key, double> out;
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

void compare(const std::string& name, const fs::path& dir, const std::string& only) {
  const Trace t = read_otf2(dir);
  const MetricTable table = metric_table(analyze(t));
  std::map<Key, double> mine;
  for (const MetricRecord& r : table.records)
    mine[{table.metrics[r.metric], metric_callpath_name(t.defs, r.callpath), r.rank}] += r.value;
  const std::map<Key, double> ref = read_dump(dir / "scalasca.tsv.gz");
  std::set<std::string> shared;
  std::set<std::string> theirs;
  for (const auto& [k, v] : ref) theirs.insert(std::get<0>(k));
  for (const auto& [k, v] : mine)
    if (theirs.count(std::get<0>(k))) shared.insert(std::get<0>(k));
  std::printf("%s\n", name.c_str());
  for (const std::string& metric : shared) {
    if (!only.empty() && metric != only) continue;
    double distance = 0, total = 0;
    std::set<std::pair<std::string, Rank>> keys;
    for (const auto& [k, v] : ref)
      if (std::get<0>(k) == metric) keys.insert({std::get<1>(k), std::get<2>(k)});
    for (const auto& [k, v] : mine)
      if (std::get<0>(k) == metric) keys.insert({std::get<1>(k), std::get<2>(k)});
    for (const auto& [path, rank] : keys) {
      const auto a = ref.find({metric, path, rank});
      const auto b = mine.find({metric, path, rank});
      const double s = a == ref.end() ? 0 : a->second, w = b == mine.end() ? 0 : b->second;
      distance += std::abs(w - s);
      total += std::abs(s);
      if (!only.empty() && std::abs(w - s) > 1e-7)
        std::printf("    %-60s rank %3u  scalasca %.9f  wisp %.9f\n", path.c_str(), rank, s, w);
    }
    if (total == 0 && distance < 1e-9) continue;
    std::printf("  %-36s scalasca %12.6f s   L1 %8.3f %%\n", metric.c_str(), total,
                total > 0 ? 100 * distance / total : 100.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  fs::path shared = "../shared/traces";
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--metric" && i + 1 < argc) only = argv[++i];
    else shared = a;
  }
  try {
    for (const char* name : {"apps/sweep3d_50c_6r", "apps/cloverleaf_bm_short_4r", "apps/minife_100c_imb20_4r",
                             "whatif/imb8_barrier/balanced", "whatif/imb8_barrier/static",
                             "whatif/imb8_barrier/dynamic", "whatif/imb8_barrier/mixed"}) {
      const fs::path dir = shared / name;
      if (!fs::exists(dir / "scalasca.tsv.gz")) {
        std::printf("%s: absent\n", name);
        continue;
      }
      compare(name, dir, only);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
