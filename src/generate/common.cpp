// Helpers shared by the generators. See common.hpp.
#include "wisp/generate/common.hpp"

#include <fmt/format.h>

#include <cmath>

#include "wisp/error.hpp"

namespace wisp::gen {

std::vector<double> launch_times(const CommonOptions& o, std::uint32_t ranks) {
  std::vector<double> t(ranks, 0.0);
  if (o.launch_jitter <= 0) return t;
  std::mt19937_64 rng(o.seed ^ 0x6c61756e6368ull);
  std::uniform_real_distribution<double> u(0.0, o.launch_jitter);
  for (auto& x : t) x = u(rng);
  return t;
}

void apply_launch_jitter(Model& model, const CommonOptions& o) {
  const auto t = launch_times(o, model.rank_count());
  for (Rank r = 0; r < model.rank_count(); ++r) model.set_launch(r, t[r]);
}

void require(bool ok, const char* kind, const std::string& what) {
  if (!ok) throw Error(std::string("generate ") + kind + ": " + what);
}

void require_sane(const CommonOptions& o, const char* kind, double ranks, double repetitions) {
  const ModelParams& m = o.model;
  auto in = [](double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; };
  require(in(m.latency, 0, 1e3) && in(m.overhead, 0, 1e3) && in(m.init_time, 0, 1e6), kind,
          "--latency, --overhead and --init-time must be finite and not negative");
  require(in(m.bandwidth, 1, 1e21), kind, "--bandwidth must be between 1 and 1e21 bytes/s");
  require(in(o.launch_jitter, 0, 1e6), kind, "--launch-jitter must be finite and not negative");
  require(ranks <= (1 << 20), kind, fmt::format("{:.0f} ranks are more than wisp models (at most 1048576)", ranks));
  require(ranks * repetitions * 64 <= 1e9, kind,
          fmt::format("about {:.3g} events are more than a generated trace may hold (at most 1e9)",
                      ranks * repetitions * 64));
}

}  // namespace wisp::gen
