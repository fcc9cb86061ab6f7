// Identity error and its warning. See trust.hpp.
#include "wisp/replay/trust.hpp"

#include <fmt/format.h>

#include <cmath>

namespace wisp {

double identity_error(double measured, double identity) {
  return measured > 0 ? (identity - measured) / measured : 0.0;
}

std::string identity_warning(double error, const ResidualSummary* residuals) {
  if (!(std::abs(error) > kLowTrustError)) return "";
  if (!residuals)
    return fmt::format("the identity replay is {:+.1f} % off the measured run: the platform model does not "
                       "explain the traced MPI costs (software, scheduling, contention, noise), so gains carry errors "
                       "of this order; use trace-anchored costs (--costs anchored, replay.costs: anchored) unless "
                       "you study another machine", 100 * error);
  const ResidualClass all = residuals->total();
  return fmt::format("the identity replay is {:+.1f} % off the measured run although every MPI call keeps "
                     "its traced cost: {} call(s) use the model ({} ended later in the model alone, {} with unmatched "
                     "messages; see wisp info), so gains carry errors of this order", 100 * error,
                     all.model_slower + all.unmatched, all.model_slower, all.unmatched);
}

}  // namespace wisp
