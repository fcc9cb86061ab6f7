// How far to trust a gain: the interval around the point estimate. It spans the bounding cost
// hypotheses — (a) every residual kept as fixed local cost of its call, (b) every residual dropped,
// costs from the calibrated minima model alone, (c) for a platform change, every residual scaled
// with the network (network_scaling.hpp) — widened by the run-to-run variability the trace
// itself shows (a bootstrap over the run's synchronisation intervals, and the launch's jitter). scenarios/README.md
// explains it to users.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

// The gain's spread over the run's synchronisation intervals (the stretches between collectives on
// the communicator of all ranks, else between the same fractions of every rank's events): the
// 5th and 95th percentiles of the gain when those intervals are drawn again with replacement.
// The start-up (MPI_Init) is one stretch a rerun changes by about the launch's jitter: the ranks'
// launch skew (how far apart they entered MPI_Init) widens both sides.
struct GainVariability {
  std::size_t segments = 0;  // 0: not computed (fewer than kMinSegments)
  double low = 0, high = 0;  // percentiles of the resampled gain, widened by `startup` [s]
  double startup = 0;        // launch skew [s]
};
inline constexpr std::size_t kMinSegments = 8;
// `identity` and `scenario` hold the same events (the scenario's trace is the transformed identity).
GainVariability gain_variability(const Trace& identity, const Trace& scenario);

// What the variability reads of one trace, so that it can be taken before the trace is freed: the
// ends of its synchronisation intervals — each complete collective on the communicator of all ranks
// (kind: the call path of the collective that closes it, so that the setup's one-off stretches are
// not drawn in place of an iteration's), else the same fractions of every rank's events — its
// start and end, and its launch skew.
struct SyncBoundary {
  double end = 0;
  CallpathId kind = kNone;
};
struct SyncIntervals {
  std::vector<SyncBoundary> collective_ends, fraction_ends;
  double start = 0, end = 0;
  double launch_skew = 0;  // how far apart the ranks entered MPI_Init [s]
};
SyncIntervals sync_intervals(const Trace& trace);
GainVariability gain_variability(const SyncIntervals& identity, const SyncIntervals& scenario);

// The gain under each cost hypothesis [s]; unset: not made (or failed).
struct CostHypotheses {
  std::optional<double> fixed_costs;     // (a) every residual kept as fixed local cost
  std::optional<double> model_only;      // (b) every residual dropped: the minima model alone
  std::optional<double> network_scaled;  // (c) platform changes: residuals scale with the network
};

struct GainInterval : CostHypotheses {
  bool available = false;
  double low = 0, high = 0;  // [s]
  double point = 0;          // the point estimate [s]
  GainVariability variability;
  std::string note;  // why it is not available, or what it lacks
};

// Hull of the point and the hypotheses, widened on each side by the variability's deviation from
// the point estimate. (c) is made for platform changes only: its absence is not a lack.
GainInterval gain_interval(double point, const CostHypotheses& hypotheses, const GainVariability& variability);

// How well an interval held what was then measured: the share of the measured gains (one per
// measured run of the change; a gain measured once is one) inside [low, high]. 0 when the interval
// is not available. The what-if benchmark, its test and tests/perf/README.md all use this.
double share_held(const GainInterval& interval, const std::vector<double>& measured_gains);

// One line (without "warning: ") when the interval straddles zero or is wider than half the gain.
std::string interval_warning(const GainInterval& interval);

}  // namespace wisp
