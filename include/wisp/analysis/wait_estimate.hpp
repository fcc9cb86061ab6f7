// Minimum-based wait-state estimate (paper 002 §3): everything in excess of the minimum duration
// of a call category counts as waiting. Categories are (MPI function, log2 message-size class);
// the minimum is local to the rank for point-to-point completions (MPI_Recv, MPI_Wait,
// MPI_Waitall: Late Sender) and global over all ranks for N×N collectives (Wait at N x N) and, as
// an extension, MPI_Barrier (Wait at Barrier). Compared with trace-based wait states (002 Fig. 3)
// through wait ratios: waiting time over the allocation time P·(end - start).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

enum class WaitPattern : std::uint8_t { LateSender, WaitAtNxN, WaitAtBarrier };
std::string_view to_string(WaitPattern p);  // Scalasca's names: "Late Sender", "Wait at N x N", ...

// The pattern whose waiting time the estimate covers for calls of `f`: Late Sender for MPI_Recv,
// MPI_Wait, MPI_Waitall; Wait at N x N for the N x N collectives; Wait at Barrier for MPI_Barrier;
// none for every other function.
std::optional<WaitPattern> wait_pattern_of(MpiFunction f);

struct WaitEstimateRow {
  CallpathId callpath = kNone;
  Rank rank = kNone;
  MpiFunction function = MpiFunction::None;
  WaitPattern pattern = WaitPattern::LateSender;
  std::uint64_t visits = 0;
  double time = 0;                    // summed durations [s]
  double estimated = 0;               // sum over size classes of (durations - visits · minimum) [s]
  std::optional<double> trace_based;  // the trace-based wait state, when supplied [s]
};

// A minimum of one category: local (rank = the rank) or global (rank = kNone).
struct WaitMinimum {
  Rank rank = kNone;
  MpiFunction function = MpiFunction::None;
  std::uint32_t size_class = 0;
  double minimum = 0;  // seconds
  std::uint64_t visits = 0;
};

struct WaitEstimate {
  std::vector<WaitEstimateRow> rows;  // by call path, then rank
  std::vector<WaitMinimum> minima;    // local minima by rank, then global ones (rank kNone)
  double allocation_time = 0;         // P · (end - start) [s]: denominator of wait ratios
};

// Trace-based waiting time per (call path, rank) in seconds, e.g. Late Sender and Wait at N x N of
// the backward/forward replay analysis (the wait-path analysis). Rows without an entry report none.
using TraceBasedWaits = std::map<std::pair<CallpathId, Rank>, double>;

WaitEstimate estimate_waits(const Trace& trace, const TraceBasedWaits* trace_based = nullptr);
// Spread over processes (Trace::share): this process's ranks' calls, the global minima over every
// process; every process gets the whole estimate. `span`: the whole trace's (TraceSummary).
WaitEstimate estimate_waits(const Trace& trace, const TraceBasedWaits* trace_based, ProcessGroup& group, double span);

// Wait ratios per call path (summed over ranks), paper 002 §4.1: only call paths whose estimated
// or trace-based ratio reaches `threshold` (0.5 % in the paper).
struct WaitRatio {
  CallpathId callpath = kNone;
  WaitPattern pattern = WaitPattern::LateSender;
  double estimated = 0;
  std::optional<double> trace_based;
};
std::vector<WaitRatio> wait_ratios(const WaitEstimate& estimate, double threshold = 0.005);

}  // namespace wisp
