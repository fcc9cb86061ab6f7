// Structures derived once from the per-rank events and shared by every consumer:
// point-to-point matching (per communicator, source, destination and tag, FIFO in posting order,
// as MPI's non-overtaking rule says), collective instances (the n-th operation on a communicator
// on each member) and MPI call spans. Problems are counted in trace.anomalies, never fatal.
#pragma once

#include "wisp/group/process_group.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// Recomputes messages, collective instances, call spans and their anomalies from the events.
// Anomalies already recorded by the builder (times, nesting, requests) are kept.
void derive(Trace& trace);
// The same for a trace spread over `group` (Trace::share): the ranks' message sides and collective
// records cross to every process for the matching and go again, so that every process has the
// whole tables and anomalies derive(trace) gives the whole trace; call spans of its own ranks.
void derive(Trace& trace, ProcessGroup& group);

void match_messages(Trace& trace);
void match_collectives(Trace& trace);
void find_mpi_calls(Trace& trace);

}  // namespace wisp
