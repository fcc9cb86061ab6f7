// What a platform change can move. See platform_reach.hpp.
#include "wisp/scenario/platform_reach.hpp"

#include <fmt/format.h>

namespace wisp {

bool changes_platform(const Scenario& s) {
  for (const Transform& t : s.transforms)
    if (t.kind == TransformKind::Platform) return true;
  for (const SweepAxis& a : s.sweep)
    if (a.key.rfind("platform.", 0) == 0) return true;
  return false;
}

std::optional<PlatformReach> platform_reach(const std::optional<ResidualSummary>& residuals) {
  if (!residuals) return std::nullopt;
  const ResidualClass all = residuals->total();
  if (!(all.traced > 0)) return std::nullopt;
  return PlatformReach{all.traced, std::max(0.0, all.traced - all.residual)};
}

std::string platform_reach_text(const PlatformReach& r) {
  return fmt::format(
      "platform changes act on the network model's part of the MPI time: {:.6f} s of {:.6f} s traced ({:.1f} %); "
      "the residual is kept as measured",
      r.modelled, r.traced, 100 * r.share());
}

std::string platform_reach_warning(const PlatformReach& r) {
  if (r.share() >= 0.5) return {};
  return fmt::format(
      "the network model explains {:.0f} % of the traced MPI time ({:.3f} of {:.3f} s): a platform change can move "
      "only that part, the rest is kept as measured (software, scheduling, noise)",
      100 * r.share(), r.modelled, r.traced);
}

}  // namespace wisp
