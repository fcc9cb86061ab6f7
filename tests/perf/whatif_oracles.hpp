// The what-if oracles (tests/data/whatif/README.md): a real imbalanced run, the scenario that
// fixes it, and the measured run of the fix. Shared by the accuracy benchmark and its test.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "wisp/io/otf2_reader.hpp"
#include "wisp/scenario/gain_interval.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp::oracle {

struct Oracle {
  std::string name;                // "imb8_barrier/static"
  std::string trace;               // the imbalanced run, under the oracle directory
  std::vector<std::string> fixed;  // the traced runs of the fix
  std::string transforms;          // the scenario's transforms (YAML)
  bool clean = false;              // one rank per core: no oversubscription
  // More runs of the fix, measured untraced: a file of lines "<oracle> <mode> repN ... span=S" and
  // the mode whose spans are the fix's (imb2_barrier/NOISE.txt).
  std::string noise, noise_mode;
};

inline std::vector<Oracle> oracles() {
  const std::string work = "  - rebalance: work\n";
  // miniFE's computation phases (the decomposition moves every one of them); cg_solve holds the
  // inlined mat-vec.
  std::string phases;
  for (const char* r : {"cg_solve", "perform_element_loop", "impose_dirichlet", "init_matrix", "waxpby", "dot",
                        "make_local_matrix", "generate_matrix_structure"})
    phases += std::string("  - rebalance: ") + r + "\n";
  std::vector<Oracle> all = {
      {"imb8_barrier/static", "imb8_barrier/static", {"imb8_barrier/balanced"}, work, false, "", ""},
      {"imb8_barrier/dynamic", "imb8_barrier/dynamic", {"imb8_barrier/balanced"}, work, false, "", ""},
      {"imb8_barrier/mixed", "imb8_barrier/mixed", {"imb8_barrier/balanced"}, work, false, "", ""},
      {"imb8_ring/static", "imb8_ring/static", {"imb8_ring/balanced"}, work, false, "", ""},
      {"minife2/imb20_A", "minife2/imb20_A", {"minife2/imb0_A", "minife2/imb0_B"}, phases, true, "", ""}};
  for (const char* mode : {"static", "dynamic", "mixed"})
    for (const char* run : {"A", "B"}) {
      const std::string name = std::string("imb2_barrier/") + mode + "_" + run;
      all.push_back({name,
                     name,
                     {"imb2_barrier/balanced_A", "imb2_barrier/balanced_B"},
                     work,
                     true,
                     "imb2_barrier/NOISE.txt",
                     "balanced"});
    }
  return all;
}

// The spans of the untraced runs of `mode` in a NOISE.txt file.
inline std::vector<double> noise_spans(const std::filesystem::path& file, const std::string& mode) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot open");
  std::vector<double> spans;
  for (std::string line; std::getline(in, line);) {
    const std::size_t m = line.find(' '), span = line.find("span=");
    if (m == std::string::npos || span == std::string::npos || line.compare(m + 1, mode.size() + 1, mode + " ") != 0)
      continue;
    spans.push_back(std::stod(line.substr(span + 5)));
  }
  if (spans.empty()) throw std::runtime_error(file.string() + ": no run of " + mode);
  return spans;
}

struct Outcome {
  std::vector<double> measured_gains;  // imbalanced span − each measured run of the fix's span [s]
  double measured_gain = 0;            // their mean [s]
  double measured_fixed = 0;           // the mean span of the fix's runs [s]
  PointResult point;                   // wisp's prediction, with its interval
  double error() const { return (point.gain() - measured_gain) / measured_gain; }
  double span_error() const { return (point.scenario - measured_fixed) / measured_fixed; }
  double held() const { return share_held(point.interval, measured_gains); }
};

// Runs the oracle's scenario (replays and interval, no analyses) with `costs` (anchored, model).
inline Outcome evaluate(const std::filesystem::path& dir, const Oracle& o, const std::string& costs) {
  Outcome out;
  std::vector<double> fixed;
  for (const std::string& f : o.fixed) {
    const Trace t = read_otf2(dir / f);
    fixed.push_back(t.end_time() - t.start_time());
  }
  if (!o.noise.empty())
    for (double span : noise_spans(dir / o.noise, o.noise_mode)) fixed.push_back(span);
  const Trace measured = read_otf2(dir / o.trace);
  for (double f : fixed) {
    out.measured_fixed += f / static_cast<double>(fixed.size());
    out.measured_gains.push_back(measured.end_time() - measured.start_time() - f);
  }
  out.measured_gain = measured.end_time() - measured.start_time() - out.measured_fixed;
  const std::string yaml = "wisp: 1\nname: oracle\ntrace: " + (dir / o.trace).string() +
                           "\nreplay:\n  costs: " + costs + "\ntransforms:\n" + o.transforms;
  const Scenario s = parse_scenario(yaml, dir / "oracle.yaml");
  out.point = PointRun(s, measured).finish();
  return out;
}

}  // namespace wisp::oracle
