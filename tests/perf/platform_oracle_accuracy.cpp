// Platform-oracle accuracy: every case of tests/perf/platform_oracles.hpp (4 programs, both
// directions between shared memory and TCP, the target described in three ways), the predicted
// change of the run after MPI_Init against the measured one, the gain interval widened by the
// target's A/B spread and whether it holds the measured change; then the counts against the
// limits of the platform oracle. Not a test; the figures go into tests/perf/README.md.
// Usage: platform_oracle_accuracy [PLATFORM_DIR [CASE]]   (default ../shared/traces/platform; CASE: only the
// cases whose name contains it, e.g. "halo vader->tcp")
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "platform_oracles.hpp"

using namespace wisp;
namespace po = wisp::platform_oracle;

namespace {

// One table: every case, then the counts against the platform oracle's limits.
void table(const std::filesystem::path& dir, const std::vector<po::Case>& cases, const std::filesystem::path& work,
           const std::string& only) {
  std::printf("%-33s %10s %10s %9s %8s | %24s %5s %5s %5s | %9s %9s %9s\n", "case", "measured", "predicted", "spread",
              "error", "interval (+- spread)", "holds", "limit", "sign", "fixed", "minima", "scaled");
  std::size_t total = 0, holds = 0, within = 0, signs = 0;
  std::vector<double> errors;
  for (const po::Case& c : cases) {
    if (c.name().find(only) == std::string::npos) continue;
    const po::Outcome r = po::evaluate(dir, c, work);
    // Each cost hypothesis's change of the run (the interval's readings; - when not made).
    const auto change = [](const std::optional<double>& gain) {
      return gain ? fmt::format("{:+9.4f}", -*gain) : fmt::format("{:>9}", "-");
    };
    const GainInterval& i = r.point.interval;
    std::printf("%-33s %+9.4fs %+9.4fs %8.4fs %+7.0f%% | [%+9.4f, %+9.4f] %5s %5s %5s | %s %s %s\n", c.name().c_str(),
                r.measured, r.predicted(), r.spread, 100 * r.error(), r.low(), r.high(), r.holds() ? "yes" : "no",
                r.within_limit() ? "yes" : "no", r.sign_right() ? "yes" : "no", change(i.fixed_costs).c_str(),
                change(i.model_only).c_str(), change(i.network_scaled).c_str());
    ++total;
    holds += r.holds();
    within += r.within_limit();
    signs += r.sign_right();
    errors.push_back(std::abs(r.error()));
  }
  if (errors.empty()) return;
  std::sort(errors.begin(), errors.end());
  std::printf(
      "%zu cases: within |error| <= max(25 %%, spread) %zu, right sign %zu, interval holds %zu; median |error| "
      "%.0f %%\n",
      total, within, signs, holds, 100 * errors[errors.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    spdlog::set_level(spdlog::level::err);
    const std::filesystem::path dir = argc > 1 ? argv[1] : "../shared/traces/platform";
    const std::filesystem::path work = std::filesystem::temp_directory_path() / "wisp-platform-oracle";
    std::filesystem::create_directories(work);
    const std::string only = argc > 2 ? argv[2] : "";
    for (const auto& cases : {po::cases(), po::placement_cases()}) table(dir, cases, work, only);
    std::filesystem::remove_all(work);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}