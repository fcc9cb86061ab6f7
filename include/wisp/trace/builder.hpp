// TraceBuilder: the one way to make a Trace from a stream of OTF2-like records, used by the OTF2
// reader, the generators and the replay. It builds the call-path tree from Enter/Leave nesting,
// resolves request ids to the records of their Isend/Irecv, clamps and reports anomalies, and
// on finish() derives message matching, collective instances and MPI call spans. With
// RankAppend::Concurrent each rank may be appended on its own thread (the OTF2 reader's threads).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

class TraceBuilder;

// Call paths by (parent, region), numbered in order of discovery.
struct CallpathTable {
  std::vector<Callpath>* paths;  // the nodes: Definitions::callpaths or a rank's own list
  std::unordered_map<std::uint64_t, CallpathId> index;

  CallpathId find_or_add(CallpathId parent, RegionId region);
};

// How ranks are appended. Shared: ranks share the trace's call paths and anomalies, appends may
// interleave (generators, replay). Concurrent: each rank keeps its own until finish(), which
// merges them in rank order, so the trace equals the Shared one of the same ranks appended one
// after another; appends to different ranks may then run on different threads.
enum class RankAppend { Shared, Concurrent };

// Appends events of one rank. Events must be appended in the rank's time order.
class RankBuilder {
 public:
  void reserve(std::size_t events);

  void program_begin(double t);
  void program_end(double t);
  void enter(double t, RegionId region);
  void leave(double t, RegionId region);
  void send(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes);
  void isend(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes, std::uint64_t request);
  void isend_complete(double t, std::uint64_t request);
  void irecv_request(double t, std::uint64_t request);
  void irecv(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes, std::uint64_t request);
  void recv(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes);
  void request_test(double t, std::uint64_t request);
  void request_cancelled(double t, std::uint64_t request);
  void collective_begin(double t);
  void collective_end(double t, CollectiveOp op, CommId comm, Rank root, std::uint64_t sent, std::uint64_t received);
  void comm_create(double t, CommId comm);
  void comm_destroy(double t, CommId comm);

  // Call path the rank is in now (kNone outside every region); with RankAppend::Concurrent an
  // id of the rank's own call paths until TraceBuilder::finish().
  CallpathId current_callpath() const { return stack_.empty() ? kNone : stack_.back(); }
  Rank rank() const { return rank_; }
  std::size_t event_count() const { return out_->events.size(); }

 private:
  friend class TraceBuilder;
  // A rank's own call paths and anomalies (RankAppend::Concurrent) until the owner adopts them.
  struct Own {
    std::vector<Callpath> paths;
    CallpathTable table{&paths, {}};
    Anomalies anomalies;
  };

  RankBuilder(TraceBuilder* owner, Rank rank, RankTrace* out, RankAppend mode);

  const Callpath& path(CallpathId id) const { return (*paths_->paths)[id]; }
  void renumber_callpaths(const std::vector<CallpathId>& to);
  double checked_time(double t);
  EventIndex push(double t, EventKind kind, std::uint32_t ref);
  std::uint32_t new_p2p(const P2P& p);
  std::uint32_t request_record(std::uint64_t request, EventKind kind, double t);
  void finish();

  struct CallpathCacheEntry {
    CallpathId parent = kNone;
    RegionId region = kNone;
    CallpathId child = kNone;
  };

  TraceBuilder* owner_;
  Rank rank_;
  RankTrace* out_;
  std::unique_ptr<Own> own_;  // RankAppend::Concurrent, until finish()
  CallpathTable* paths_;      // own_->table or the owner's
  Anomalies* anomalies_;      // own_->anomalies or the trace's
  double last_time_ = 0;
  std::vector<CallpathId> stack_;
  std::unordered_map<std::uint64_t, std::uint32_t> open_requests_;  // request id -> p2p record
  std::uint32_t open_collective_ = kNone;
  std::vector<CallpathCacheEntry> cache_ = std::vector<CallpathCacheEntry>(256);
};

class TraceBuilder {
 public:
  // `defs` must already hold the ranks, regions and communicators the events refer to.
  explicit TraceBuilder(Definitions defs, RankAppend mode = RankAppend::Shared);
  TraceBuilder(const TraceBuilder&) = delete;
  TraceBuilder& operator=(const TraceBuilder&) = delete;

  RankBuilder& rank(Rank r) { return *builders_[r]; }
  Definitions& defs() { return trace_.defs; }
  Anomalies& anomalies() { return trace_.anomalies; }
  std::map<std::string, std::uint64_t>& skipped_records() { return trace_.skipped_records; }

  // Closes what is left open (reported as anomalies), derives the shared structures and hands
  // the trace over. The builder is empty afterwards.
  Trace finish();
  // The same for a trace spread over `group`: only `share`'s ranks were appended (with
  // RankAppend::Concurrent); every process numbers the call paths and merges the anomalies as
  // finish() would with every rank, and derives over the group (derive.hpp).
  Trace finish(ProcessGroup& group, RankShare share);

 private:
  friend class RankBuilder;
  void adopt(RankBuilder& rank);

  Trace trace_;
  CallpathTable callpaths_{&trace_.defs.callpaths, {}};
  std::vector<std::unique_ptr<RankBuilder>> builders_;
};

}  // namespace wisp
