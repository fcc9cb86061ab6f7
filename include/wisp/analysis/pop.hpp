// POP efficiency factors (paper 003 §2, after Rosas et al.) over the whole run or any time range:
//   load balance  LB  = mean_r U_r / max_r U_r      (U_r: useful time, i.e. outside MPI, of rank r)
//   serialisation Ser = max_r U_r / T_ideal         (T_ideal: runtime on an ideal network)
//   transfer      Trf = T_ideal / T                 (T: elapsed time)
//   parallel efficiency PE = LB · Ser · Trf = mean_r U_r / T; communication efficiency Ser · Trf.
// Time-resolved (003 §3): per rank, the useful-time and ideal-network timers are piecewise linear
// in time; inside an MPI call the wait part (enter until the call's release) comes first and
// carries the whole ideal-clock increase, the transfer part after it none (wait-then-transfer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wisp/analysis/pag.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct PopFactors {
  double load_balance = 0;
  double serialisation = 0;
  double transfer = 0;
  double parallel_efficiency = 0;
  double communication_efficiency = 0;
  double elapsed = 0;      // T [s]
  double ideal = 0;        // T_ideal [s]
  double mean_useful = 0;  // [s]
  double max_useful = 0;   // [s]
};
// A factor whose denominator is zero (e.g. no useful time in a window) is NaN.

struct PopOptions {
  std::uint64_t eager_limit = 65536;              // bytes: the ideal-network replay's eager limit
  std::optional<double> ideal_runtime;            // externally replayed T_ideal [s] (e.g. SimGrid, ideal platform)
  std::string ideal_runtime_source = "external";  // what replayed it, for the reports
};

// Useful-time and ideal-network timers of every rank, from the ideal-network clock replay.
struct PopTimeline {
  struct Point {
    double time = 0;    // seconds since the trace's time 0
    double useful = 0;  // useful time of the rank so far
    double ideal = 0;   // ideal-network clock of the rank
  };
  // A rank's breakpoints are its first event, every MPI call's enter, release and leave, and its
  // last event. They are kept per call (48 bytes, not three 24-byte points): the three points of a
  // call share its useful time, and its release and leave share the ideal clock.
  struct Call {
    double enter = 0, release = 0, leave = 0;  // [s]
    double useful = 0;                         // useful time of the rank before the call
    double ideal_enter = 0, ideal_leave = 0;   // ideal-network clock at the enter, and from the release on
  };
  struct RankTimers {
    Point first, last;        // first and last event (first.useful = 0)
    std::vector<Call> calls;  // MPI calls in event order
    bool empty = true;        // a rank without events has no breakpoints
  };
  std::vector<RankTimers> ranks;
  double start = 0, end = 0;  // first and last event of the trace
  double ideal_runtime = 0;   // from the clock replay [s]

  // Breakpoint i of rank r: 0 the first event, 1 + 3k + {0, 1, 2} call k's enter, release, leave.
  std::size_t point_count(Rank r) const { return ranks[r].empty ? 0 : 3 * ranks[r].calls.size() + 2; }
  Point point(Rank r, std::size_t i) const;
  // A rank's MPI events: the enters and leaves of its calls, in time order (2k enter, 2k + 1 leave).
  std::size_t mpi_event_count(Rank r) const { return 2 * ranks[r].calls.size(); }
  double mpi_event_time(Rank r, std::size_t i) const {
    const Call& c = ranks[r].calls[i / 2];
    return i % 2 == 0 ? c.enter : c.leave;
  }

  double useful_at(Rank r, double t) const;
  double ideal_at(Rank r, double t) const;
};

// On a PAG of its own (RendezvousRule::EagerLimit).
PopTimeline pop_timeline(const Trace& trace, std::uint64_t eager_limit = 65536);
// On `pag`'s ideal variant (Pag::ideal_variant != 0, else wisp::Error), e.g. the analysis PAG built
// with PagOptions::ideal_eager_limit.
PopTimeline pop_timeline(const Trace& trace, const Pag& pag);

// Factors over [from, to].
PopFactors pop_factors(const PopTimeline& timeline, double from, double to);
// Factors of the whole run; with options.ideal_runtime, T_ideal is that instead of the clock replay's.
PopFactors pop_factors(const PopTimeline& timeline, const PopOptions& options = {});

// The same timers at given times only, from the same sweep without keeping the breakpoints:
// ranks x times values instead of 48 bytes per MPI call (what analyze_pop() uses: the factors of
// the run and of its windows need the timers at the windows' borders only).
struct PopSamples {
  std::size_t rank_count = 0;
  std::vector<double> times;          // sorted, distinct
  std::vector<double> useful, ideal;  // per rank, per time: [r * times.size() + i]
  double start = 0, end = 0;          // first and last event of the trace
  double ideal_runtime = 0;           // from the clock replay [s]

  // At one of the sample times (else wisp::Error): the value PopTimeline gives there.
  double useful_at(Rank r, double t) const { return useful[slot(r, t)]; }
  double ideal_at(Rank r, double t) const { return ideal[slot(r, t)]; }

 private:
  std::size_t slot(Rank r, double t) const;
};
PopSamples pop_samples(const Trace& trace, const Pag& pag, std::vector<double> times);
// Collective over `group` for a trace spread over it, on this process's part of the PAG
// (build_pag(trace, options, group) with the ideal network's dependencies): the samples of every
// rank on every process, equal to pop_samples() of the whole trace; nullopt on every process if
// the dependencies form a cycle (events with equal time stamps out of order), which only the
// whole trace's graph can break.
std::optional<PopSamples> pop_samples(const Trace& trace, const Pag& pag, std::vector<double> times,
                                      ProcessGroup& group, GhostTransport transport = GhostTransport::Automatic,
                                      std::size_t round_bytes = kGhostRoundBytes);
PopFactors pop_factors(const PopSamples& samples, double from, double to);
PopFactors pop_factors(const PopSamples& samples, const PopOptions& options = {});

}  // namespace wisp
