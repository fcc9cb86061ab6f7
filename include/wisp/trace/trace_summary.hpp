// What the reports read of a trace: its definitions and totals, without its events. `wisp run`
// keeps this of the simulated traces once they are analysed, written and drawn, and drops their
// events (the run's peak memory); a Trace converts to it where a report asks for one.
#pragma once

#include <cstdint>

#include "wisp/trace/trace.hpp"

namespace wisp {

struct TraceSummary {
  Definitions defs;
  std::uint32_t ranks = 0;
  std::uint64_t events = 0;
  double first = 0, last = 0;  // the earliest and latest event of any rank [s]

  TraceSummary() = default;
  TraceSummary(const Trace& trace);  // NOLINT(google-explicit-constructor): reports take either

  std::uint32_t rank_count() const { return ranks; }
  std::uint64_t event_count() const { return events; }
  double start_time() const { return first; }
  double end_time() const { return last; }
  double span() const { return last - first; }
};

// Spread over processes (Trace::share): the whole trace's summary, on every process.
TraceSummary summary_over(const Trace& trace, ProcessGroup& group);

}  // namespace wisp
