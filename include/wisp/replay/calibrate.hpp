// Calibration of a platform from a trace, by the minimum-duration idea of paper 002: for each MPI
// function and log2 message-size class the fastest instance is taken as wait-free, and
// t = o + L + s/B is fitted over the classes (over the fastest transfers of messages and collective
// steps when the trace has no rendezvous receives). The result is a crossbar with one host per rank
// (per-host down links from each receiver's own minima), the per-call overheads and the eager
// threshold, so that replaying the trace on it reproduces the measured run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// The fastest instance of one (MPI function, size class), over all ranks or on one rank.
struct CalibrationPoint {
  std::string function;
  Rank rank = kNone;             // kNone: global minimum
  std::uint32_t size_class = 0;  // 0: 0 bytes; k: [2^(k-1), 2^k) bytes
  std::uint64_t bytes = 0;       // size of the fastest instance
  std::uint64_t instances = 0;
  double measured = 0;  // its duration [s] (of a collective: its wait-free part)
  double fitted = -1;   // the fit's value for it, < 0 if it is not part of a fit
};

// t = intercept + bytes / bandwidth over the rendezvous classes of one rank's MPI_Recv minima.
struct ReceiverFit {
  Rank rank = kNone;
  double latency = 0;    // [s] (intercept minus the receive overhead)
  double bandwidth = 0;  // [bytes/s]
  std::size_t classes = 0;
};

// Typical cost of one (rank, MPI function, size class) beyond the network model: the mean of its
// calls' trace-anchored residuals, with their spread (how far single calls are from it).
struct CallCost {
  std::string function;
  Rank rank = kNone;
  std::uint32_t size_class = 0;
  std::uint64_t calls = 0;
  double mean = 0, median = 0, p90 = 0, max = 0;  // of max(0, residual) [s]
};

struct Calibration {
  Platform platform;             // crossbar, one host per rank, ready to replay or write as XML
  double latency = 0;            // L [s]
  double bandwidth = 0;          // B [bytes/s]
  std::string network_evidence;  // what L and B were fitted on (notes say where they could not be)
  std::string typical_evidence;  // what the typical excess (MpiCosts::typical_excess) was fitted on
  std::string copy_evidence;     // what the eager copy (MpiCosts::eager_copy) was fitted on
  double base_overhead = 0;      // fastest MPI call without communication [s]
  std::uint64_t eager_threshold = 0;
  std::string eager_evidence;  // how the threshold was found
  std::vector<CalibrationPoint> points;
  std::vector<ReceiverFit> receivers;
  std::vector<std::string> notes;    // fall-backs taken
  std::vector<CallCost> call_costs;  // model-only calibration (calibrate_call_costs)
  // Collective algorithms the trace allows (calibrate_collectives), with why they differ from
  // the defaults; replays start from them (a user's choice per family still wins).
  CollectiveAlgorithms algorithms;
  std::vector<std::string> algorithm_evidence;
};

Calibration calibrate(const Trace& trace);

// Rooted collectives (Bcast, Reduce, Gather, Scatter) stay binomial unless the trace contradicts
// it: a member that left before the member a binomial tree makes it wait for had entered. Then
// the family is linear (non-roots talk to the root only); `evidence` says why, one line per family.
CollectiveAlgorithms calibrate_collectives(const Trace& trace, std::vector<std::string>& evidence);

// Model-only calibration: makes the platform representative of typical costs, not minima. Replays
// `trace` anchored on c.platform, and stores each (rank's host, MPI function, size class)'s mean
// residual as its call cost (Platform::mpi.call_costs), listed in c.call_costs.
void calibrate_call_costs(const Trace& trace, Calibration& c);

// Fitted values, per-class minima with residuals, per-receiver links: for the terminal.
std::string calibration_text(const Calibration& c);

}  // namespace wisp
