// What-if accuracy: every oracle (tests/perf/whatif_oracles.hpp) in both cost modes, predicted vs
// measured gain, the gain interval and whether it holds the measured gain; then the interval's
// coverage and median width relative to the measured gain. Not a test (whatif_oracle_test checks
// the limits); the figures go into tests/perf/README.md.
// Usage: replay_whatif_accuracy [ORACLE_DIR]   (default tests/data/whatif)
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "whatif_oracles.hpp"

using namespace wisp;

int main(int argc, char** argv) {
  try {
    spdlog::set_level(spdlog::level::err);
    const std::filesystem::path dir = argc > 1 ? argv[1] : "tests/data/whatif";
    std::printf("%-22s %-8s %10s %10s %8s %10s | %10s %10s %9s | %22s %6s %7s\n", "oracle", "costs", "measured",
                "predicted", "error", "span err", "fixed", "minima", "run-run", "interval", "holds", "width");
    for (const std::string costs : {"anchored", "model"}) {
      double held = 0;
      std::size_t total = 0;
      std::vector<double> widths;
      for (const oracle::Oracle& o : oracle::oracles()) {
        const oracle::Outcome r = oracle::evaluate(dir, o, costs);
        const GainInterval& g = r.point.interval;
        const double width = g.available ? (g.high - g.low) / std::abs(r.measured_gain) : NAN;
        std::printf("%-22s %-8s %9.4fs %9.4fs %+7.1f%% %+9.2f%% | %9.4fs %9.4fs %+8.4f | [%8.4f, %8.4f] %6s %6.1f%%\n",
                    o.name.c_str(), costs.c_str(), r.measured_gain, r.point.gain(), 100 * r.error(),
                    100 * r.span_error(), g.fixed_costs.value_or(NAN), g.model_only.value_or(NAN),
                    (g.variability.high - g.variability.low) / 2, g.low, g.high,
                    fmt::format("{}/{}", static_cast<int>(std::lround(r.held() * r.measured_gains.size())),
                                r.measured_gains.size())
                        .c_str(),
                    100 * width);
        ++total;
        held += r.held();
        if (g.available) widths.push_back(width);
      }
      std::sort(widths.begin(), widths.end());
      std::printf(
          "%s: the interval holds %.1f %% of the measured gains (mean share over %zu oracles); median width "
          "%.1f %% of the measured gain\n\n",
          costs.c_str(), 100 * held / static_cast<double>(total), total,
          widths.empty() ? NAN : 100 * widths[widths.size() / 2]);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
