// TraceBuilder: appends records rank by rank, builds call paths, resolves requests, and derives
// the shared structures at the end. See builder.hpp.
#include "wisp/trace/builder.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cstdint>

#include "wisp/trace/derive.hpp"

namespace wisp {

CallpathId CallpathTable::find_or_add(CallpathId parent, RegionId region) {
  const std::uint64_t key = (static_cast<std::uint64_t>(parent) << 32) | region;
  auto [it, inserted] = index.try_emplace(key, kNone);
  if (inserted) {
    const std::uint32_t depth = parent == kNone ? 0 : (*paths)[parent].depth + 1;
    paths->push_back(Callpath{region, parent, depth});
    it->second = static_cast<CallpathId>(paths->size() - 1);
  }
  return it->second;
}

TraceBuilder::TraceBuilder(Definitions defs, RankAppend mode) {
  trace_.defs = std::move(defs);
  const auto n = trace_.defs.ranks.size();
  trace_.ranks.resize(n);
  builders_.reserve(n);
  for (Rank r = 0; r < n; ++r) builders_.emplace_back(new RankBuilder(this, r, &trace_.ranks[r], mode));
}

RankBuilder::RankBuilder(TraceBuilder* owner, Rank rank, RankTrace* out, RankAppend mode)
    : owner_(owner), rank_(rank), out_(out) {
  if (mode == RankAppend::Concurrent) own_ = std::make_unique<Own>();
  paths_ = own_ ? &own_->table : &owner->callpaths_;
  anomalies_ = own_ ? &own_->anomalies : &owner->trace_.anomalies;
}

// A rank's own call paths join the trace's (new ones numbered in the rank's order of discovery,
// as if it had been appended after the ranks before it), its events are renumbered if needed,
// and its anomalies follow theirs.
void TraceBuilder::adopt(RankBuilder& rank) {
  const std::vector<Callpath>& own = rank.own_->paths;
  std::vector<CallpathId> to(own.size());
  bool same = true;
  for (CallpathId id = 0; id < own.size(); ++id) {
    const CallpathId parent = own[id].parent == kNone ? kNone : to[own[id].parent];
    to[id] = callpaths_.find_or_add(parent, own[id].region);
    same = same && to[id] == id;
  }
  if (!same) rank.renumber_callpaths(to);
  trace_.anomalies.merge(rank.own_->anomalies);
  rank.paths_ = &callpaths_;
  rank.anomalies_ = &trace_.anomalies;
  rank.own_.reset();
}

Trace TraceBuilder::finish() {
  for (auto& b : builders_)
    if (b->own_) adopt(*b);
  for (auto& b : builders_) b->finish();
  builders_.clear();
  callpaths_.index.clear();
  derive(trace_);
  return std::move(trace_);
}

namespace {
// Asks the kernel for transparent huge pages on a large table that is about to be filled:
// far fewer page faults while reading big traces. Harmless where THP is unavailable.
template <typename T>
void advise_huge_pages(const std::vector<T>& v) {
  constexpr std::uintptr_t page = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(v.data()) + v.capacity() * sizeof(T)) & ~(page - 1);
  if (end > begin + (4u << 20)) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// Faults in the pages of a table that is about to be filled, in one call instead of one fault
// per page. Harmless where the kernel does not know MADV_POPULATE_WRITE (before Linux 5.14).
template <typename T>
void populate(const std::vector<T>& v) {
#ifdef MADV_POPULATE_WRITE
  constexpr std::uintptr_t page = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(v.data()) + v.capacity() * sizeof(T)) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#endif
}
}  // namespace

void RankBuilder::reserve(std::size_t events) {
  out_->events.reserve(events);
  advise_huge_pages(out_->events);
  populate(out_->events);
  out_->p2p.reserve(events / 5);  // typical MPI traces: one message side per 4-6 events
  advise_huge_pages(out_->p2p);
}

void RankBuilder::renumber_callpaths(const std::vector<CallpathId>& to) {
  for (Event& e : out_->events)
    if (e.kind == EventKind::Enter || e.kind == EventKind::Leave) e.ref = to[e.ref];
  for (CallpathId& open : stack_) open = to[open];
  cache_.assign(cache_.size(), CallpathCacheEntry{});
}

double RankBuilder::checked_time(double t) {
  if (t < last_time_) {
    anomalies_->add(AnomalyKind::NonMonotonicTime, [&] {
      return fmt::format("rank {} event {}: time {:.9f} s after {:.9f} s", rank_, out_->events.size(), t, last_time_);
    });
    return last_time_;
  }
  last_time_ = t;
  return t;
}

EventIndex RankBuilder::push(double t, EventKind kind, std::uint32_t ref) {
  out_->events.push_back(Event{checked_time(t), ref, kind});
  return static_cast<EventIndex>(out_->events.size() - 1);
}

std::uint32_t RankBuilder::new_p2p(const P2P& p) {
  out_->p2p.push_back(p);
  return static_cast<std::uint32_t>(out_->p2p.size() - 1);
}

void RankBuilder::program_begin(double t) { push(t, EventKind::ProgramBegin, 0); }
void RankBuilder::program_end(double t) { push(t, EventKind::ProgramEnd, 0); }

void RankBuilder::enter(double t, RegionId region) {
  const CallpathId parent = current_callpath();
  auto& slot = cache_[(parent * 31u + region * 131u) & (cache_.size() - 1)];
  if (slot.parent != parent || slot.region != region)
    slot = CallpathCacheEntry{parent, region, paths_->find_or_add(parent, region)};
  stack_.push_back(slot.child);
  push(t, EventKind::Enter, slot.child);
}

void RankBuilder::leave(double t, RegionId region) {
  const auto& regions = owner_->trace_.defs.regions;
  if (stack_.empty() || path(stack_.back()).region != region) {
    anomalies_->add(AnomalyKind::UnmatchedLeave, [&] {
      const std::string open = stack_.empty() ? "no open region" : "in " + regions[path(stack_.back()).region].name;
      return fmt::format("rank {} event {}: leave of {} while {} (ignored)", rank_, out_->events.size(),
                         regions[region].name, open);
    });
    return;
  }
  push(t, EventKind::Leave, stack_.back());
  stack_.pop_back();
}

void RankBuilder::send(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes) {
  const auto rec = new_p2p(P2P{bytes, 0, peer, comm, tag, kNone, kNone, kNone, EventKind::MpiSend});
  out_->p2p[rec].event = push(t, EventKind::MpiSend, rec);
}

void RankBuilder::isend(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes,
                        std::uint64_t request) {
  const auto rec = new_p2p(P2P{bytes, request, peer, comm, tag, kNone, kNone, kNone, EventKind::MpiIsend});
  out_->p2p[rec].event = push(t, EventKind::MpiIsend, rec);
  open_requests_[request] = rec;
}

void RankBuilder::recv(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes) {
  const auto rec = new_p2p(P2P{bytes, 0, peer, comm, tag, kNone, kNone, kNone, EventKind::MpiRecv});
  out_->p2p[rec].event = push(t, EventKind::MpiRecv, rec);
}

void RankBuilder::irecv_request(double t, std::uint64_t request) {
  P2P p;
  p.request = request;
  p.kind = EventKind::MpiIrecv;
  const auto rec = new_p2p(p);
  out_->p2p[rec].request_event = push(t, EventKind::MpiIrecvRequest, rec);
  open_requests_[request] = rec;
}

// The record of an open request, or a bare new one (reported) when the id was never posted.
std::uint32_t RankBuilder::request_record(std::uint64_t request, EventKind kind, double t) {
  const auto it = open_requests_.find(request);
  if (it != open_requests_.end()) return it->second;
  anomalies_->add(AnomalyKind::UnknownRequest, [&] {
    return fmt::format("rank {} event {} ({}) at {:.9f} s: request {} was never posted", rank_, out_->events.size(),
                       to_string(kind), t, request);
  });
  P2P p;
  p.request = request;
  p.kind = kind == EventKind::MpiIsendComplete ? EventKind::MpiIsend : EventKind::MpiIrecv;
  return new_p2p(p);
}

void RankBuilder::irecv(double t, Rank peer, CommId comm, std::int32_t tag, std::uint64_t bytes,
                        std::uint64_t request) {
  const auto rec = request_record(request, EventKind::MpiIrecv, t);
  P2P& p = out_->p2p[rec];
  p.kind = EventKind::MpiIrecv;
  p.peer = peer;
  p.comm = comm;
  p.tag = tag;
  p.bytes = bytes;
  p.request = request;
  out_->p2p[rec].event = push(t, EventKind::MpiIrecv, rec);
  open_requests_.erase(request);
}

void RankBuilder::isend_complete(double t, std::uint64_t request) {
  const auto rec = request_record(request, EventKind::MpiIsendComplete, t);
  out_->p2p[rec].request_event = push(t, EventKind::MpiIsendComplete, rec);
  open_requests_.erase(request);
}

void RankBuilder::request_test(double t, std::uint64_t request) {
  const auto rec = request_record(request, EventKind::MpiRequestTest, t);
  push(t, EventKind::MpiRequestTest, rec);
}

void RankBuilder::request_cancelled(double t, std::uint64_t request) {
  const auto rec = request_record(request, EventKind::MpiRequestCancelled, t);
  push(t, EventKind::MpiRequestCancelled, rec);
  open_requests_.erase(request);
}

void RankBuilder::collective_begin(double t) {
  out_->collectives.push_back(CollectiveRecord{});
  open_collective_ = static_cast<std::uint32_t>(out_->collectives.size() - 1);
  out_->collectives[open_collective_].begin = push(t, EventKind::MpiCollectiveBegin, open_collective_);
}

void RankBuilder::collective_end(double t, CollectiveOp op, CommId comm, Rank root, std::uint64_t sent,
                                 std::uint64_t received) {
  if (open_collective_ == kNone) collective_begin(t);  // End without Begin: pair it in place
  CollectiveRecord& c = out_->collectives[open_collective_];
  c.op = op;
  c.comm = comm;
  c.root = root;
  c.sent = sent;
  c.received = received;
  c.end = push(t, EventKind::MpiCollectiveEnd, open_collective_);
  open_collective_ = kNone;
}

void RankBuilder::comm_create(double t, CommId comm) { push(t, EventKind::CommCreate, comm); }
void RankBuilder::comm_destroy(double t, CommId comm) { push(t, EventKind::CommDestroy, comm); }

Trace TraceBuilder::finish(ProcessGroup& group, RankShare share) {
  // Every rank's own call paths and anomalies, in rank order on every process.
  Packer mine;
  mine.put(share.first).put(share.last);
  for (Rank r = share.first; r < share.last; ++r) {
    mine.put_vector(builders_[r]->own_->paths);
    pack_anomalies(mine, builders_[r]->own_->anomalies);
  }
  for (const std::string& packet : all_gather(group, mine.take())) {
    Unpacker in(packet);
    const auto first = in.get<Rank>();
    const auto last = in.get<Rank>();
    for (Rank r = first; r < last; ++r) {
      const std::vector<Callpath> paths = in.get_vector<Callpath>();
      const Anomalies anomalies = unpack_anomalies(in);
      if (share.owns(r)) {
        adopt(*builders_[r]);
        continue;
      }
      std::vector<CallpathId> to(paths.size());
      for (CallpathId id = 0; id < paths.size(); ++id)
        to[id] = callpaths_.find_or_add(paths[id].parent == kNone ? kNone : to[paths[id].parent], paths[id].region);
      trace_.anomalies.merge(anomalies);
    }
  }
  // What closing the ranks finds, merged in rank order too.
  Anomalies closing;
  for (Rank r = share.first; r < share.last; ++r) {
    builders_[r]->anomalies_ = &closing;
    builders_[r]->finish();
  }
  Packer found;
  pack_anomalies(found, closing);
  for (const std::string& packet : all_gather(group, found.take())) {
    Unpacker in(packet);
    trace_.anomalies.merge(unpack_anomalies(in));
  }
  builders_.clear();
  callpaths_.index.clear();
  trace_.share = share;
  derive(trace_, group);
  return std::move(trace_);
}

namespace {
// Gives back growth slack of more than 10 % (traces built without reserve(): generators, replay).
template <typename T>
void trim(std::vector<T>& v) {
  if (v.capacity() > v.size() + v.size() / 10) v.shrink_to_fit();
}
}  // namespace

void RankBuilder::finish() {
  auto& anomalies = *anomalies_;
  const auto& defs = owner_->trace_.defs;
  if (!stack_.empty()) {
    anomalies.add(AnomalyKind::UnclosedRegion, [&] {
      return fmt::format(
          "rank {}: {} region(s) still open at the end, innermost {} (closed at "
          "{:.9f} s)",
          rank_, stack_.size(), defs.region_of(stack_.back()).name, last_time_);
    });
    while (!stack_.empty()) {
      push(last_time_, EventKind::Leave, stack_.back());
      stack_.pop_back();
    }
  }
  if (open_collective_ != kNone) {  // Begin without End: the record joins no instance
    CollectiveRecord& c = out_->collectives[open_collective_];
    c.end = c.begin;
    c.comm = kNone;
    anomalies.add(AnomalyKind::IncompleteCollective,
                  [&] { return fmt::format("rank {}: collective begun at event {} never ended", rank_, c.begin); });
  }
  for (const auto& open : open_requests_) {
    const auto request = open.first;  // plain variables: the lambda captures them
    const auto rec = open.second;
    anomalies.add(AnomalyKind::UnfinishedRequest, [&] {
      return fmt::format("rank {}: request {} posted at event {} never completed", rank_, request,
                         out_->p2p[rec].event != kNone ? out_->p2p[rec].event : out_->p2p[rec].request_event);
    });
  }
  open_requests_.clear();
  trim(out_->events);
  trim(out_->p2p);
  trim(out_->collectives);
}

}  // namespace wisp
