// The what-if oracles (tests/data/whatif/README.md): a real imbalanced run, the scenario that
// fixes it, and the measured run of the fix. Shared by the accuracy benchmark and its test.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "wisp/io/otf2_reader.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp::oracle {

struct Oracle {
  std::string name;                // "imb8_barrier/static"
  std::string trace;               // the imbalanced run, under the oracle directory
  std::vector<std::string> fixed;  // the measured runs of the fix (their mean end time)
  std::string transforms;          // the scenario's transforms (YAML)
  bool clean = false;              // one rank per core: no oversubscription
};

inline std::vector<Oracle> oracles() {
  const std::string work = "  - rebalance: work\n";
  // miniFE's computation phases (the decomposition moves every one of them); cg_solve holds the
  // inlined mat-vec.
  std::string phases;
  for (const char* r : {"cg_solve", "perform_element_loop", "impose_dirichlet", "init_matrix", "waxpby", "dot",
                        "make_local_matrix", "generate_matrix_structure"})
    phases += std::string("  - rebalance: ") + r + "\n";
  return {{"imb8_barrier/static", "imb8_barrier/static", {"imb8_barrier/balanced"}, work, false},
          {"imb8_barrier/dynamic", "imb8_barrier/dynamic", {"imb8_barrier/balanced"}, work, false},
          {"imb8_barrier/mixed", "imb8_barrier/mixed", {"imb8_barrier/balanced"}, work, false},
          {"imb8_ring/static", "imb8_ring/static", {"imb8_ring/balanced"}, work, false},
          {"minife2/imb20_A", "minife2/imb20_A", {"minife2/imb0_A", "minife2/imb0_B"}, phases, true}};
}

struct Outcome {
  double measured_gain = 0;   // imbalanced end − mean end of the fixed runs [s]
  double measured_fixed = 0;  // mean end of the fixed runs [s]
  PointResult point;          // wisp's prediction, with its interval
  double error() const { return (point.gain() - measured_gain) / measured_gain; }
  double span_error() const { return (point.scenario - measured_fixed) / measured_fixed; }
  bool covered() const {
    return point.interval.available && point.interval.low <= measured_gain && measured_gain <= point.interval.high;
  }
};

// Runs the oracle's scenario (replays and interval, no analyses) with `costs` (anchored, model).
inline Outcome evaluate(const std::filesystem::path& dir, const Oracle& o, const std::string& costs) {
  Outcome out;
  for (const std::string& f : o.fixed) out.measured_fixed += read_otf2(dir / f).end_time() / o.fixed.size();
  const Trace measured = read_otf2(dir / o.trace);
  out.measured_gain = measured.end_time() - out.measured_fixed;
  const std::string yaml = "wisp: 1\nname: oracle\ntrace: " + (dir / o.trace).string() +
                           "\nreplay:\n  costs: " + costs + "\ntransforms:\n" + o.transforms;
  const Scenario s = parse_scenario(yaml, dir / "oracle.yaml");
  out.point = PointRun(s, measured).finish();
  return out;
}

}  // namespace wisp::oracle
