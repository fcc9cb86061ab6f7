// The Trace: wisp's one data model. The OTF2 reader and the generators produce it, the replay
// consumes and produces it, every analysis reads it. Besides the per-rank events it holds the
// structures derived once after loading (message matching, collective instances, MPI call spans)
// so that no consumer recomputes them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/anomaly.hpp"
#include "wisp/trace/attributes.hpp"
#include "wisp/trace/definitions.hpp"
#include "wisp/trace/event.hpp"
#include "wisp/trace/other_locations.hpp"

namespace wisp {

// One MPI call on one rank: its Enter and Leave events.
struct CallSpan {
  EventIndex enter = kNone;
  EventIndex leave = kNone;
};

struct RankTrace {
  std::vector<Event> events;                  // time-ordered
  std::vector<P2P> p2p;                       // message sides, in event order
  std::vector<CollectiveRecord> collectives;  // collective operations, in event order
  std::vector<CallSpan> mpi_calls;            // MPI calls, by Enter (derived)
  OtherLocationEvents others;                 // hybrid traces: the other threads' and streams' regions
  ThreadRecords thread_records;               // hybrid traces: fork/join, teams, locks, tasks per location
  RankMetrics metrics;                        // counter samples of the master and the metric locations
  OtherLocationMetrics other_metrics;         // counter samples of the other threads and streams
  RmaRecords rma_records;                     // one-sided records (CUDA memory copies) per location
  RankAttributes attributes;                  // the attribute lists of any of the above records
};

// A matched point-to-point message: the send side on `sender`, the receive side on `receiver`
// (indices into the ranks' p2p tables).
struct Message {
  Rank sender = kNone;
  Rank receiver = kNone;
  std::uint32_t send = kNone;
  std::uint32_t recv = kNone;
};

struct CollectiveMember {
  Rank rank = kNone;
  std::uint32_t record = kNone;  // index into ranks[rank].collectives
};

// The n-th collective operation on a communicator, across its members.
struct CollectiveInstance {
  CommId comm = kNone;
  std::uint32_t first = 0;  // first member in Trace::collective_members
  std::uint32_t count = 0;  // members that reached it (== comm size when complete)
  Rank root = kNone;
  CollectiveOp op = CollectiveOp::Barrier;
  bool complete = false;
};

struct Trace {
  Definitions defs;
  std::vector<RankTrace> ranks;

  // Derived by derive() (see derive.hpp); read-only for consumers.
  std::vector<Message> messages;
  // Spread over processes: `messages` holds only the messages with a side on this process's ranks,
  // in message order, and message_ids[k] is the number of messages[k] (what P2P::message holds);
  // empty: messages[k] is message k. message() and message_id() read either.
  std::vector<std::uint32_t> message_ids;
  std::vector<CollectiveInstance> collectives;
  std::vector<CollectiveMember> collective_members;
  Anomalies anomalies;
  std::map<std::string, std::uint64_t> skipped_records;  // OTF2 records wisp does not model
  // Spread over processes (read_otf2 with a ProcessGroup): the ranks whose records this process
  // holds; the others' RankTrace is empty. The derived tables above are whole on every process.
  std::optional<RankShare> share;
  bool holds(Rank r) const { return !share || share->owns(r); }
  RankShare held() const { return share.value_or(RankShare{0, rank_count()}); }  // all ranks if whole

  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(ranks.size()); }
  std::uint64_t event_count() const;
  // Time of the first event of any rank (0 for a trace without events).
  double start_time() const;
  // Time of the last event of any rank (the first event of the trace is at or after 0).
  double end_time() const;
  // From the first to the last event of any rank: how long the run took (0 without events).
  double span() const;

  const Event& event(Rank r, EventIndex i) const { return ranks[r].events[i]; }
  std::uint32_t message_id(std::size_t k) const {
    return message_ids.empty() ? static_cast<std::uint32_t>(k) : message_ids[k];
  }
  const Message& message(std::uint32_t id) const;  // by number (spread: one with a side here)
  const P2P& send_of(const Message& m) const { return ranks[m.sender].p2p[m.send]; }
  const P2P& recv_of(const Message& m) const { return ranks[m.receiver].p2p[m.recv]; }
  const CollectiveMember* members(const CollectiveInstance& c) const { return collective_members.data() + c.first; }
};

// Bytes the trace occupies in memory (capacity of every table), for the memory budget.
std::uint64_t memory_footprint(const Trace& trace);

// Hands the allocator's free pages back to the system, where it can (glibc keeps freed blocks below
// its mmap threshold resident until reused): before a step that allocates much (an analysis).
void return_free_memory();
// Empties `trace` and returns its pages: for a caller done with a large trace.
void release(Trace& trace);
// In a forked child process that will never read `trace` (nor free it: it ends with _exit): drops
// the child's copies of its large tables' pages, so that they do not outlive the parent's trace
// (the scenario's replays do not read the measured trace the parent frees meanwhile). The
// object must not be read in that process afterwards.
void forget_pages(const Trace& trace);

// The group an analysis of `trace` runs in: `group` for a trace spread over it, a group of one for
// a whole trace, which every process analyses whole (SoloProcess holds no state: one serves all).
inline ProcessGroup& group_for(const Trace& trace, ProcessGroup& group) {
  static SoloProcess alone;
  return trace.share ? group : alone;
}

}  // namespace wisp
