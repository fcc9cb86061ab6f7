// Identity error and its warning. See trust.hpp.
#include "wisp/replay/trust.hpp"

#include <fmt/format.h>

#include <cmath>

namespace wisp {

double identity_error(double measured, double identity) {
  return measured > 0 ? (identity - measured) / measured : 0.0;
}

std::string hybrid_warning(const Trace& trace) {
  std::uint64_t threads = 0, streams = 0;
  for (const Location& rank : trace.defs.ranks)
    for (const ThreadLocation& l : rank.others) (l.kind == LocationKind::CpuThread ? threads : streams) += 1;
  if (threads + streams == 0) return "";
  return fmt::format(
      "hybrid trace: the master threads are replayed (a parallel region is their computation); the "
      "ranks' {} other threads and {} accelerator streams keep their regions, moved along their "
      "master's timeline; transforms act on the masters (rebalance across: threads shortens a "
      "parallel region by its team's max - mean work)",
      threads, streams);
}

std::string placement_warning(const ReplayStatistics& s, const std::string& replay) {
  if (s.ranks_sharing_cores == 0) return "";
  return fmt::format(
      "the {}replay puts {} of {} ranks on hosts with fewer cores than ranks ({}): they share cores, so their "
      "computation slows; for a core per rank, give a platform or hostfile (replay.hostfile) with one",
      replay.empty() ? "" : replay + " ", s.ranks_sharing_cores, s.rank_hosts.size(), s.sharing_example);
}

std::string identity_warning(double error, const ResidualSummary* residuals) {
  if (!(std::abs(error) > kLowTrustError)) return "";
  if (!residuals)
    return fmt::format(
        "the identity replay is {:+.1f} % off the measured run: the platform model does not "
        "explain the traced MPI costs (software, scheduling, contention, noise), so gains carry errors "
        "of this order; use trace-anchored costs (--costs anchored, replay.costs: anchored) unless "
        "you study another machine",
        100 * error);
  const ResidualClass all = residuals->total();
  return fmt::format(
      "the identity replay is {:+.1f} % off the measured run although every MPI call keeps "
      "its traced cost: {} call(s) use the model ({} ended later in the model alone, {} with unmatched "
      "messages; see wisp info), so gains carry errors of this order",
      100 * error, all.model_slower + all.unmatched, all.model_slower, all.unmatched);
}

}  // namespace wisp
