// Program activity graph construction. See pag.hpp.
#include "wisp/analysis/pag.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "wisp/error.hpp"

namespace wisp {

std::uint64_t Pag::memory_bytes() const {
  std::uint64_t n = sizeof(*this) + graph.memory_bytes() + time.capacity() * sizeof(Ticks) +
                    first_vertex.capacity() * sizeof(std::uint32_t);
  for (const auto& c : calls) n += sizeof(c) + c.capacity() * sizeof(PagCall);
  return n;
}

namespace {

struct Dependency {
  std::uint32_t from;
  std::uint32_t to;
  Ticks from_time;  // at(from), read once (mostly another rank's event: a cache miss)
  ActivityKind kind;
  Variant variants = kBothVariants;
};

class Builder {
 public:
  Builder(const Trace& trace, const PagOptions& options, Pag& pag)
      : trace_(trace), options_(options), pag_(pag), g_(pag.graph) {}

  void run() {
    if (options_.ideal_eager_limit) {
      g_.variants = kBothVariants;
      pag_.ideal_variant = kSecondVariant;
      pag_.ideal_eager_limit = *options_.ideal_eager_limit;
    } else if (options_.rendezvous == RendezvousRule::EagerLimit) {
      pag_.ideal_variant = kFirstVariant;  // the graph is the ideal network's
      pag_.ideal_eager_limit = options_.eager_limit;
    }
    add_event_vertices();
    reserve_activities();
    index_calls();
    add_collective_vertices();
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      cache_rank(r);
      add_rank_activities(r);
    }
    cached_rank_ = kNone;
    rank_ticks_ = {};
    p2p_vertex_ = {};
    p2p_ticks_ = {};
    collective_call_ = {};
    collective_ticks_ = {};
    if (options_.vertex_times) keep_vertex_times();
    hub_time_ = {};
    pag_.anomalies.cycle_activities = index_graph(g_);
    if (pag_.ideal_variant == kSecondVariant && !(g_.variants & kSecondVariant)) pag_.ideal_variant = 0;
  }

 private:
  Ticks ticks(double seconds) const { return std::llround(seconds * pag_.ticks_per_second); }
  // Vertex times are not stored while building (8 bytes per vertex): an event's comes from the
  // trace, a synchronisation vertex's from hub_time_. Pag::time is filled at the end if asked for.
  Ticks event_at(Rank r, EventIndex i) const {
    return r == cached_rank_ ? rank_ticks_[i] : ticks(trace_.ranks[r].events[i].time);
  }
  // The rank being added: its event times once (1/P of the vertex times at a time).
  void cache_rank(Rank r) {
    rank_ticks_.clear();
    for (const Event& e : trace_.ranks[r].events) rank_ticks_.push_back(ticks(e.time));
    cached_rank_ = r;
  }
  // A vertex of the rank being added (a call's enter, a completion) without looking its rank up.
  Ticks own_at(std::uint32_t v) const {
    const std::uint32_t i = v - pag_.first_vertex[cached_rank_];
    return i < rank_ticks_.size() ? rank_ticks_[i] : at(v);
  }
  Ticks at(std::uint32_t v) const {
    if (v >= first_hub_) return hub_time_[v - first_hub_];
    if (v == Pag::kStart) return pag_.origin;
    const Rank r = g_.lane_of(v);  // an event vertex's lane is its rank
    return event_at(r, v - pag_.first_vertex[r]);
  }

  std::uint32_t new_vertex(Ticks t, std::uint32_t lane) {
    hub_time_.push_back(t);
    return g_.add_vertex(lane);
  }

  void add_event_vertices() {
    pag_.ticks_per_second = static_cast<double>(trace_.defs.clock.ticks_per_second);
    std::uint64_t events = 1;
    for (const auto& rt : trace_.ranks) events += rt.events.size();
    if (events + trace_.collectives.size() >= kNone - 1)
      throw Error(
          fmt::format("program activity graph: {} events are more than its 32-bit vertex ids can hold", events));
    g_.add_vertex(kNone);  // the virtual start, at the origin
    bool any = false;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const auto& events_of_r = trace_.ranks[r].events;
      pag_.first_vertex.push_back(g_.add_vertices(static_cast<std::uint32_t>(events_of_r.size()), r));
      if (trace_.ranks[r].events.empty()) continue;
      const Ticks first = event_at(r, 0);
      pag_.origin = any ? std::min(pag_.origin, first) : first;
      any = true;
    }
    first_hub_ = g_.vertex_count;
    pag_.calls.resize(trace_.rank_count());
  }

  void keep_vertex_times() {
    pag_.time.reserve(g_.vertex_count);
    pag_.time.push_back(pag_.origin);
    for (Rank r = 0; r < trace_.rank_count(); ++r)
      for (const Event& e : trace_.ranks[r].events) pag_.time.push_back(ticks(e.time));
    pag_.time.insert(pag_.time.end(), hub_time_.begin(), hub_time_.end());
  }

  // Explicit activities: launches, messages, rendezvous, collectives (the local ones are chains).
  void reserve_activities() {
    g_.activities.reserve(trace_.rank_count() + 2 * trace_.messages.size() + 2 * trace_.collective_members.size());
  }

  // ---- collectives: one synchronisation vertex per instance (per member for Scan/Exscan) ----

  struct MemberEvents {
    Rank rank;
    std::uint32_t record;
    std::uint32_t begin;  // vertices
    std::uint32_t end;
    Ticks begin_time;  // at(begin), at(end)
    Ticks end_time;
  };

  void add_collective_vertices() {
    hub_of_record_.resize(trace_.rank_count());
    replaced_.resize(trace_.rank_count());
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      hub_of_record_[r].assign(trace_.ranks[r].collectives.size(), kNone);
      replaced_[r].assign(trace_.ranks[r].collectives.size(), 0);
    }
    std::vector<MemberEvents> members;
    for (const CollectiveInstance& inst : trace_.collectives) {
      if (!inst.complete || inst.count < 2) continue;
      members.clear();
      for (std::uint32_t i = 0; i < inst.count; ++i) {
        const CollectiveMember& m = trace_.members(inst)[i];
        const CollectiveRecord& rec = trace_.ranks[m.rank].collectives[m.record];
        if (rec.begin == kNone || rec.end == kNone) break;
        const auto& times = collective_ticks_[m.rank][m.record];
        members.push_back({m.rank, m.record, pag_.vertex(m.rank, rec.begin), pag_.vertex(m.rank, rec.end), times.first,
                           times.second});
      }
      if (members.size() != inst.count) continue;
      add_instance(inst, members);
    }
  }

  std::uint32_t local_index_of(const std::vector<MemberEvents>& members, Rank root) const {
    for (std::uint32_t i = 0; i < members.size(); ++i)
      if (members[i].rank == root) return i;
    return kNone;
  }

  void add_instance(const CollectiveInstance& inst, const std::vector<MemberEvents>& members) {
    const CollectiveClass cls = classify(inst.op);
    const bool rooted = cls == CollectiveClass::OneToN || cls == CollectiveClass::NToOne;
    const std::uint32_t root = rooted ? local_index_of(members, inst.root) : kNone;
    if (rooted && root == kNone) return;  // no root among the members: keep the members local
    // Release time of each member's end, and whether it waits for other members at all.
    const std::size_t n = members.size();
    std::vector<Ticks> release(n, 0);
    std::vector<bool> waits(n, true);
    Ticks all = members[0].begin_time;
    for (const auto& m : members) all = std::max(all, m.begin_time);
    Ticks prefix = members[0].begin_time;
    for (std::size_t i = 0; i < n; ++i) {
      prefix = std::max(prefix, members[i].begin_time);
      switch (cls) {
        case CollectiveClass::OneToN:
          release[i] = members[root].begin_time;
          break;
        case CollectiveClass::NToOne:
          release[i] = all;
          waits[i] = i == root;
          break;
        case CollectiveClass::Prefix:
          release[i] = prefix;
          break;
        default:
          release[i] = all;
          break;
      }
    }
    for (std::size_t i = 0; i < n; ++i)
      if (waits[i] && members[i].end_time < release[i]) {
        ++pag_.anomalies.inconsistent_collectives;
        return;
      }
    if (cls == CollectiveClass::Prefix) {
      std::uint32_t previous = kNone;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t hub = new_vertex(release[i], kNone);
        synchronise(members[i], hub);
        if (previous != kNone) g_.add_activity({0, previous, hub, kNone, ActivityKind::Synchronisation});
        hub_of_record_[members[i].rank][members[i].record] = hub;
        replaced_[members[i].rank][members[i].record] = 1;
        previous = hub;
      }
      return;
    }
    const std::uint32_t hub = new_vertex(cls == CollectiveClass::OneToN ? release[0] : all, kNone);
    for (std::size_t i = 0; i < n; ++i) {
      // A member whose begin feeds the hub reaches its end only through it; a non-root member of
      // a 1->N operation also keeps its own local path (it waits for itself and the root).
      const bool feeds = cls != CollectiveClass::OneToN || i == root;
      if (feeds) synchronise(members[i], hub);
      if (!waits[i]) continue;
      hub_of_record_[members[i].rank][members[i].record] = hub;
      replaced_[members[i].rank][members[i].record] = feeds ? 1 : 0;
    }
  }

  void synchronise(const MemberEvents& m, std::uint32_t hub) {
    const EventIndex call = collective_call_[m.rank][m.record];
    const CallpathId cp = call == kNone ? kNone : trace_.ranks[m.rank].events[call].callpath();
    g_.add_activity({0, m.begin, hub, cp, ActivityKind::Synchronisation});
  }

  // ---- point-to-point dependencies ----

  // The MPI call each record is in (the last Enter of an MPI region with no Leave of one since),
  // from one forward pass over each rank's events instead of a backward scan per record. Per rank,
  // per P2P record: for a send, its start (the Enter of the MPI_Send/MPI_Isend/... call holding it,
  // else its own event); for a receive, where it was posted (MpiIrecvRequest, or the Enter of a
  // blocking receive; kNone outside any call). Per collective record: the Enter of the call its
  // begin is in (kNone outside any call).
  void index_calls() {
    p2p_vertex_.resize(trace_.rank_count());
    p2p_ticks_.resize(trace_.rank_count());
    collective_call_.resize(trace_.rank_count());
    collective_ticks_.resize(trace_.rank_count());
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const RankTrace& rt = trace_.ranks[r];
      std::vector<std::uint32_t>& out = p2p_vertex_[r];
      out.assign(rt.p2p.size(), kNone);
      std::vector<Ticks>& out_ticks = p2p_ticks_[r];
      out_ticks.assign(rt.p2p.size(), 0);
      collective_call_[r].assign(rt.collectives.size(), kNone);
      collective_ticks_[r].reserve(rt.collectives.size());
      for (const CollectiveRecord& rec : rt.collectives)  // in time order: read densely, once
        collective_ticks_[r].emplace_back(rec.begin == kNone ? 0 : ticks(rt.events[rec.begin].time),
                                          rec.end == kNone ? 0 : ticks(rt.events[rec.end].time));
      EventIndex call = kNone;
      for (EventIndex i = 0; i < rt.events.size(); ++i) {
        const Event& e = rt.events[i];
        switch (e.kind) {
          case EventKind::Enter:
          case EventKind::Leave:
            if (is_mpi(trace_.defs.region_of(e.callpath()).kind)) call = e.kind == EventKind::Enter ? i : kNone;
            break;
          case EventKind::MpiSend:
          case EventKind::MpiIsend:
          case EventKind::MpiRecv:
          case EventKind::MpiIrecv: {
            const P2P& p = rt.p2p[e.p2p()];
            if (p.event != i) break;
            const EventIndex at_event =
                p.is_send() ? (call != kNone ? call : i) : (p.request_event != kNone ? p.request_event : call);
            if (at_event == kNone) break;
            out[e.p2p()] = pag_.vertex(r, at_event);
            out_ticks[e.p2p()] = ticks(rt.events[at_event].time);
            break;
          }
          case EventKind::MpiCollectiveBegin:
            if (rt.collectives[e.collective()].begin == i) collective_call_[r][e.collective()] = call;
            break;
          default:
            break;
        }
      }
    }
  }

  void rendezvous(Rank r, std::uint32_t record, std::uint32_t completion) {
    const P2P& send = trace_.ranks[r].p2p[record];
    if (send.message == kNone) return;
    const Message& m = trace_.messages[send.message];
    const std::uint32_t posted = p2p_vertex_[m.receiver][m.recv];
    if (posted == kNone) return;
    const Ticks post = p2p_ticks_[m.receiver][m.recv], done = own_at(completion);
    const auto depends = [&](RendezvousRule rule, std::uint64_t eager_limit) {
      return rule == RendezvousRule::Observed ? p2p_ticks_[r][record] < post && post <= done
                                              : send.bytes > eager_limit && post <= done;
    };
    Variant variants = depends(options_.rendezvous, options_.eager_limit) ? kFirstVariant : 0;
    if (options_.ideal_eager_limit && depends(RendezvousRule::EagerLimit, *options_.ideal_eager_limit))
      variants |= kSecondVariant;
    if (variants != 0) deps_.push_back({posted, completion, post, ActivityKind::Rendezvous, variants});
  }

  void message(const P2P& recv, std::uint32_t completion) {
    if (recv.message == kNone) return;
    const Message& m = trace_.messages[recv.message];
    const std::uint32_t sent = p2p_vertex_[m.sender][m.send];
    if (sent == kNone) return;  // a send record with no send event: no dependency
    const Ticks sent_at = p2p_ticks_[m.sender][m.send];
    if (sent_at > own_at(completion)) {
      ++pag_.anomalies.receive_before_send;  // treated as a local operation (paper 003 §4.0.1)
      return;
    }
    deps_.push_back({sent, completion, sent_at, ActivityKind::Message});
  }

  // ---- per rank ----

  void collect_dependencies(Rank r, const CallSpan& call) {
    const RankTrace& rt = trace_.ranks[r];
    deps_.clear();
    for (EventIndex i = call.enter + 1; i <= call.leave; ++i) {
      const Event& e = rt.events[i];
      const std::uint32_t v = pag_.vertex(r, i);
      switch (e.kind) {
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv:
          message(rt.p2p[e.p2p()], v);
          break;
        case EventKind::MpiIsendComplete:
          rendezvous(r, e.p2p(), v);
          break;
        case EventKind::MpiSend:
          rendezvous(r, e.p2p(), pag_.vertex(r, call.leave));
          break;
        case EventKind::MpiCollectiveEnd: {
          const std::uint32_t hub = hub_of_record_[r][e.collective()];
          if (hub != kNone) deps_.push_back({hub, v, at(hub), ActivityKind::Collective});
          break;
        }
        default:
          break;
      }
    }
  }

  bool replaced_by_hub(Rank r, EventIndex i) const {
    const auto& ev = trace_.ranks[r].events;
    return ev[i + 1].kind == EventKind::MpiCollectiveEnd && ev[i].kind == EventKind::MpiCollectiveBegin &&
           replaced_[r][ev[i + 1].collective()] != 0;
  }

  // R of the call in one variant: the latest start of its dependencies there, or its enter.
  Ticks release_in(Variant variant, std::uint32_t enter) const {
    Ticks release = own_at(enter);
    for (const Dependency& d : deps_)
      if (d.variants & variant) release = std::max(release, d.from_time);
    return release;
  }

  void add_call(Rank r, const CallSpan& call) {
    collect_dependencies(r, call);
    const std::uint32_t enter = pag_.vertex(r, call.enter);
    const Ticks release = release_in(kFirstVariant, enter);
    const Ticks ideal_release = pag_.ideal_variant == kSecondVariant ? release_in(kSecondVariant, enter) : release;
    const CallpathId cp = trace_.ranks[r].events[call.enter].callpath();
    Ticks next = event_at(r, call.enter);
    for (EventIndex i = call.enter; i < call.leave; ++i) {
      const Ticks here = next;
      next = event_at(r, i + 1);
      if (replaced_by_hub(r, i)) continue;
      const Ticks d = std::max<Ticks>(0, next - std::max(here, release));
      g_.add_chain(pag_.vertex(r, i), d, cp, ActivityKind::Mpi);
    }
    for (const Dependency& d : deps_) {
      const Ticks from = d.variants & kFirstVariant ? release : ideal_release;
      Activity a{std::max<Ticks>(0, own_at(d.to) - from), d.from, d.to, cp, d.kind};
      a.variants = d.variants;
      g_.add_activity(a);
    }
    pag_.calls[r].push_back(PagCall{call.enter, call.leave, ideal_release});
  }

  CallpathId after(CallpathId cp, const Event& e) const {
    if (e.kind == EventKind::Enter) return e.callpath();
    if (e.kind == EventKind::Leave) return trace_.defs.callpaths[e.callpath()].parent;
    return cp;
  }

  void add_rank_activities(Rank r) {
    const RankTrace& rt = trace_.ranks[r];
    const auto n = static_cast<EventIndex>(rt.events.size());
    if (n == 0) return;
    const std::uint32_t first = pag_.vertex(r, 0);
    pag_.calls[r].reserve(rt.mpi_calls.size());  // outermost calls: at most that many
    g_.add_activity({own_at(first) - pag_.origin, Pag::kStart, first, kLaunchCallpath, ActivityKind::Launch});
    CallpathId cp = kNone;
    std::size_t c = 0;
    for (EventIndex i = 0; i < n; ++i) {
      if (c < rt.mpi_calls.size() && rt.mpi_calls[c].enter == i) {
        const CallSpan call = rt.mpi_calls[c];
        add_call(r, call);
        for (EventIndex j = call.enter; j <= call.leave; ++j) cp = after(cp, rt.events[j]);
        i = call.leave;
        while (c < rt.mpi_calls.size() && rt.mpi_calls[c].enter <= call.leave) ++c;  // nested calls
      } else {
        cp = after(cp, rt.events[i]);
      }
      if (i + 1 < n)
        g_.add_chain(pag_.vertex(r, i), event_at(r, i + 1) - event_at(r, i), cp, ActivityKind::Computation);
    }
  }

  const Trace& trace_;
  const PagOptions& options_;
  Pag& pag_;
  ActivityGraph& g_;
  std::vector<std::vector<std::uint32_t>> hub_of_record_;  // per rank, per collective record
  std::vector<std::vector<std::uint8_t>> replaced_;        // the local begin -> end activity is the hub's
  std::vector<Dependency> deps_;
  std::uint32_t first_hub_ = 0;  // synchronisation vertices from here on
  std::vector<Ticks> hub_time_;  // their times
  Rank cached_rank_ = kNone;     // cache_rank()
  std::vector<Ticks> rank_ticks_;
  std::vector<std::vector<std::uint32_t>> p2p_vertex_;                  // index_calls()
  std::vector<std::vector<Ticks>> p2p_ticks_;                           // index_calls(): at(p2p_vertex_), read densely
  std::vector<std::vector<EventIndex>> collective_call_;                // index_calls()
  std::vector<std::vector<std::pair<Ticks, Ticks>>> collective_ticks_;  // index_calls(): begin, end times
};

}  // namespace

Pag build_pag(const Trace& trace, const PagOptions& options) {
  Pag pag;
  Builder(trace, options, pag).run();
  return pag;
}

}  // namespace wisp
