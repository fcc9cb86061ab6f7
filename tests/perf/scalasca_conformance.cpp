// Conformance figures against Scalasca 2.6 (not a test; run by hand, figures go into tests/perf/README.md):
// for every trace under a traces directory (tests/data, or ../shared/traces) with a Scalasca dump (scalasca.tsv.gz:
// metric, cnode id, call path under the program-name root, rank, thread, value; call-path exclusive), the L1 error
// Σ|wisp − Scalasca| / Σ|Scalasca| over (call path, rank) of every metric both report.
// Usage: scalasca_conformance [TRACES_DIR] [--metric NAME]   (default tests/data)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "../unit/scalasca_dump.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

using namespace wisp::test;

void compare(const std::string& name, const fs::path& dir, const std::string& only) {
  const Trace t = read_otf2(dir);
  const MetricValues mine = wisp_values(t, metric_table(analyze_wait_paths(t)));
  const MetricValues ref = read_scalasca_dump(dir / "scalasca.tsv.gz");
  std::printf("%s\n", name.c_str());
  for (const auto& [metric, e] : compare_metrics(ref, mine)) {
    if (!only.empty() && metric != only) continue;
    if (!only.empty())
      for (const auto& [k, v] : ref) {
        if (std::get<0>(k) != metric) continue;
        const auto m = mine.find(k);
        const double w = m == mine.end() ? 0.0 : m->second;
        if (std::abs(w - v) > 1e-7)
          std::printf("    %-60s rank %3u  scalasca %.9f  wisp %.9f\n", std::get<1>(k).c_str(), std::get<2>(k), v, w);
      }
    if (e.reference_total == 0 && e.distance < 1e-9) continue;
    std::printf("  %-36s scalasca %12.6f   L1 %8.3f %%\n", metric.c_str(), e.reference_total, 100 * e.l1());
  }
}

}  // namespace

int main(int argc, char** argv) {
  fs::path shared = "tests/data";
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--metric" && i + 1 < argc)
      only = argv[++i];
    else
      shared = a;
  }
  try {
    std::vector<fs::path> dirs;  // every archive with a Scalasca dump under the directory
    for (const auto& entry : fs::recursive_directory_iterator(shared))
      if (entry.path().filename() == "scalasca.tsv.gz") dirs.push_back(entry.path().parent_path());
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) std::printf("%s: no scalasca.tsv.gz\n", shared.c_str());
    for (const fs::path& dir : dirs) compare(fs::relative(dir, shared).string(), dir, only);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
