// Program activity graph construction. See pag.hpp.
#include "wisp/analysis/pag.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <compare>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "wisp/error.hpp"
#include "wisp/group/pack.hpp"
#include "wisp/group/rank_share.hpp"

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

constexpr Ticks kMissing = std::numeric_limits<Ticks>::min();

// What crosses to build a graph spread over processes: the side of a message whose other side is on
// another process (where its dependency leaves: a send's start, a receive's posting; where one
// arrives: a receive's completion, a send's completion, and the event that completion is found at),
// and a collective member of an instance with members on several processes.
struct SideFact {
  std::uint32_t message = 0;
  EventIndex target_event = kNone;
  Ticks at = kMissing, target = kMissing;
  std::uint64_t bytes = 0;
};
struct MemberFact {
  std::uint32_t instance = 0, member = 0;
  Ticks begin = kMissing, end = kMissing;
  EventIndex end_event = kNone;
  CallpathId callpath = kNone;   // of the call the member's begin is in
  std::uint8_t end_in_call = 0;  // its end is inside an MPI call (else no activity leads to it)
};

// Ghost keys: the crossing's kind, then a message or an instance and a member.
enum class Crossing : std::uint64_t { Message, Rendezvous, Feed, Wait, Prefix, Launch };
std::uint64_t ghost_key(Crossing k, std::uint64_t a, std::uint64_t b = 0) {
  return (static_cast<std::uint64_t>(k) << 61) | (a << 29) | b;
}

class Builder {
 public:
  Builder(const Trace& trace, const PagOptions& options, Pag& pag, ProcessGroup* group = nullptr)
      : trace_(trace), options_(options), pag_(pag), g_(pag.graph), group_(group), spread_(group != nullptr) {}

  void run() {
    if (options_.ideal_eager_limit) {
      g_.variants = kBothVariants;
      pag_.ideal_variant = kSecondVariant;
      pag_.ideal_eager_limit = *options_.ideal_eager_limit;
    } else if (options_.rendezvous == RendezvousRule::EagerLimit) {
      pag_.ideal_variant = kFirstVariant;  // the graph is the ideal network's
      pag_.ideal_eager_limit = options_.eager_limit;
    }
    if (spread_) {
      pag_.spread = true;
      shares_ = gather_shares(*group_, *trace_.share);
      me_ = group_->process();
    }
    add_event_vertices();
    reserve_activities();
    index_calls();
    if (spread_) exchange_sides();
    if (spread_) add_launch_exports();
    add_collective_vertices();
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      if (!local(r)) continue;
      add_exports_before(r);
      cache_rank(r);
      add_rank_activities(r);
    }
    add_exports_before(trace_.rank_count());
    if (spread_) pair_ghosts();
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
      if (!local(r)) {
        pag_.first_vertex.push_back(kNone);
        continue;
      }
      const auto& events_of_r = trace_.ranks[r].events;
      pag_.first_vertex.push_back(g_.add_vertices(static_cast<std::uint32_t>(events_of_r.size()), r));
      if (trace_.ranks[r].events.empty()) continue;
      const Ticks first = event_at(r, 0);
      pag_.origin = any ? std::min(pag_.origin, first) : first;
      any = true;
    }
    if (spread_) {  // the whole trace's origin
      const Ticks mine = any ? pag_.origin : std::numeric_limits<Ticks>::max();
      Ticks origin = std::numeric_limits<Ticks>::max();
      for (const std::string& part : all_gather(*group_, packed(mine)))
        origin = std::min(origin, Unpacker(part).get<Ticks>());
      pag_.origin = origin == std::numeric_limits<Ticks>::max() ? 0 : origin;
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
    std::uint32_t record;  // (kNone on another process, as the vertices)
    std::uint32_t begin;   // vertices
    std::uint32_t end;
    Ticks begin_time;  // at(begin), at(end)
    Ticks end_time;
    EventIndex end_event = kNone;
    CallpathId callpath = kNone;  // of the call its begin is in
    bool end_in_call = true;      // (another process's member: else the hub has no activity to its end)
  };

  void add_collective_vertices() {
    hub_of_record_.resize(trace_.rank_count());
    replaced_.resize(trace_.rank_count());
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      hub_of_record_[r].assign(trace_.ranks[r].collectives.size(), kNone);
      replaced_[r].assign(trace_.ranks[r].collectives.size(), 0);
    }
    std::vector<MemberEvents> members;
    const std::vector<MemberFact> remote = spread_ ? exchange_members() : std::vector<MemberFact>{};
    auto fact = remote.begin();
    for (std::uint32_t k = 0; k < trace_.collectives.size(); ++k) {
      const CollectiveInstance& inst = trace_.collectives[k];
      if (!inst.complete || inst.count < 2) continue;
      members.clear();
      bool here = false;
      for (std::uint32_t i = 0; i < inst.count; ++i) {
        const CollectiveMember& m = trace_.members(inst)[i];
        if (!local(m.rank)) {
          while (fact != remote.end() && (fact->instance < k || (fact->instance == k && fact->member < i))) ++fact;
          if (fact == remote.end() || fact->instance != k || fact->member != i) break;  // none: no member here
          if (fact->begin == kMissing || fact->end == kMissing) break;
          members.push_back({m.rank, kNone, kNone, kNone, fact->begin, fact->end, fact->end_event, fact->callpath,
                             fact->end_in_call != 0});
          continue;
        }
        here = true;
        const CollectiveRecord& rec = trace_.ranks[m.rank].collectives[m.record];
        if (rec.begin == kNone || rec.end == kNone) break;
        const auto& times = collective_ticks_[m.rank][m.record];
        members.push_back({m.rank, m.record, pag_.vertex(m.rank, rec.begin), pag_.vertex(m.rank, rec.end), times.first,
                           times.second, rec.end, call_callpath(m.rank, m.record)});
      }
      if (members.size() != inst.count || (spread_ && !here)) continue;
      add_instance(k, inst, members);
    }
  }

  CallpathId call_callpath(Rank r, std::uint32_t record) const {
    const EventIndex call = collective_call_[r][record];
    return call == kNone ? kNone : trace_.ranks[r].events[call].callpath();
  }

  // Per collective record of rank r: its end lies inside an outermost MPI call (where
  // collect_dependencies() finds it).
  std::vector<std::uint8_t> ends_in_calls(Rank r) const {
    const RankTrace& rt = trace_.ranks[r];
    std::vector<std::uint8_t> in(rt.collectives.size(), 0);
    for (std::size_t c = 0; c < rt.mpi_calls.size();) {
      const CallSpan call = rt.mpi_calls[c];
      for (EventIndex i = call.enter + 1; i <= call.leave; ++i)
        if (rt.events[i].kind == EventKind::MpiCollectiveEnd) in[rt.events[i].collective()] = 1;
      while (c < rt.mpi_calls.size() && rt.mpi_calls[c].enter <= call.leave) ++c;  // nested calls
    }
    return in;
  }

  // Spread: every member of each instance with members here and on other processes, from them,
  // by instance and member (this process's own are read where they are).
  std::vector<MemberFact> exchange_members() {
    std::vector<Packer> out(static_cast<std::size_t>(group_->processes()));
    std::vector<int> owners;
    std::vector<std::vector<std::uint8_t>> end_in_call(trace_.rank_count());
    for (Rank r = trace_.share->first; r < trace_.share->last; ++r) end_in_call[r] = ends_in_calls(r);
    for (std::uint32_t k = 0; k < trace_.collectives.size(); ++k) {
      const CollectiveInstance& inst = trace_.collectives[k];
      if (!inst.complete || inst.count < 2) continue;
      owners.clear();
      for (std::uint32_t i = 0; i < inst.count; ++i) owners.push_back(owner(trace_.members(inst)[i].rank));
      std::sort(owners.begin(), owners.end());
      owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
      if (owners.size() < 2 || !std::binary_search(owners.begin(), owners.end(), me_)) continue;
      for (std::uint32_t i = 0; i < inst.count; ++i) {
        const CollectiveMember& m = trace_.members(inst)[i];
        if (!local(m.rank)) continue;
        const CollectiveRecord& rec = trace_.ranks[m.rank].collectives[m.record];
        const auto& times = collective_ticks_[m.rank][m.record];
        const MemberFact f{k,
                           i,
                           rec.begin == kNone ? kMissing : times.first,
                           rec.end == kNone ? kMissing : times.second,
                           rec.end,
                           call_callpath(m.rank, m.record),
                           end_in_call[m.rank][m.record]};
        for (const int o : owners)
          if (o != me_) out[static_cast<std::size_t>(o)].put(f);
      }
    }
    std::vector<std::string> packets;
    for (Packer& p : out) packets.push_back(p.take());
    std::vector<MemberFact> facts;
    for (const std::string& packet : group_->exchange(std::move(packets))) {
      Unpacker in(packet);
      while (!in.done()) facts.push_back(in.get<MemberFact>());
    }
    std::sort(facts.begin(), facts.end(), [](const MemberFact& a, const MemberFact& b) {
      return a.instance != b.instance ? a.instance < b.instance : a.member < b.member;
    });
    return facts;
  }

  std::uint32_t local_index_of(const std::vector<MemberEvents>& members, Rank root) const {
    for (std::uint32_t i = 0; i < members.size(); ++i)
      if (members[i].rank == root) return i;
    return kNone;
  }

  void add_instance(std::uint32_t k, const CollectiveInstance& inst, const std::vector<MemberEvents>& members) {
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
    // Spread: the hub is on the process of member k mod n (a prefix operation's hubs: each on its
    // member's), which counts the instance's anomaly; the others meet it at ghosts. Instance by
    // instance the hubs of one communicator go round its members' processes, so that no process
    // holds them all (on MPI_COMM_WORLD, the first member's would).
    const int host = spread_ ? owner(members[k % members.size()].rank) : me_;
    for (std::size_t i = 0; i < n; ++i)
      if (waits[i] && members[i].end_time < release[i]) {
        if (host == me_) ++pag_.anomalies.inconsistent_collectives;
        return;
      }
    const auto here = [&](std::size_t i) { return members[i].record != kNone; };
    if (cls == CollectiveClass::Prefix) {
      std::uint32_t previous = kNone;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t link = ghost_key(Crossing::Prefix, k, i);
        if (!here(i)) {
          if (previous != kNone)
            g_.add_activity({0, previous, ghost(link, owner(members[i].rank), kNone, 0, false), kNone,
                             ActivityKind::Synchronisation});
          previous = kNone;
          continue;
        }
        const std::uint32_t hub = new_vertex(release[i], kNone);
        synchronise(members[i], hub);
        if (i > 0 && previous == kNone) previous = ghost(link, owner(members[i - 1].rank), kNone, release[i - 1], true);
        if (previous != kNone) g_.add_activity({0, previous, hub, kNone, ActivityKind::Synchronisation});
        hub_of_record_[members[i].rank][members[i].record] = hub;
        replaced_[members[i].rank][members[i].record] = 1;
        previous = hub;
      }
      return;
    }
    const Ticks hub_time = cls == CollectiveClass::OneToN ? release[0] : all;
    const std::uint32_t hub = host == me_ ? new_vertex(hub_time, kNone) : kNone;
    for (std::size_t i = 0; i < n; ++i) {
      // A member whose begin feeds the hub reaches its end only through it; a non-root member of
      // a 1->N operation also keeps its own local path (it waits for itself and the root).
      const bool feeds = cls != CollectiveClass::OneToN || i == root;
      const MemberEvents& m = members[i];
      if (feeds && hub != kNone) {
        const std::uint32_t from =
            here(i) ? m.begin : ghost(ghost_key(Crossing::Feed, k, i), owner(m.rank), m.rank, m.begin_time, true);
        g_.add_activity({0, from, hub, m.callpath, ActivityKind::Synchronisation});
      } else if (feeds && here(i)) {
        g_.add_activity({0, m.begin, ghost(ghost_key(Crossing::Feed, k, i), host, kNone, 0, false), kNone,
                         ActivityKind::Synchronisation});
      }
      if (!waits[i]) continue;
      if (!here(i)) {  // the hub's activity to its end, there
        if (hub != kNone && m.end_in_call)
          exports_.push_back({m.rank, m.end_event, hub, ghost_key(Crossing::Wait, k, i), owner(m.rank),
                              ActivityKind::Collective, kBothVariants});
        continue;
      }
      hub_of_record_[m.rank][m.record] =
          hub != kNone ? hub : ghost(ghost_key(Crossing::Wait, k, i), host, kNone, hub_time, true);
      replaced_[m.rank][m.record] = feeds ? 1 : 0;
    }
  }

  void synchronise(const MemberEvents& m, std::uint32_t hub) {
    g_.add_activity({0, m.begin, hub, m.callpath, ActivityKind::Synchronisation});
  }

  // ---- spread over processes: ghosts ----

  bool local(Rank r) const { return !spread_ || trace_.holds(r); }
  int owner(Rank r) const { return spread_ ? owner_of(shares_, r) : me_; }

  // A ghost vertex (at the other end's time if it is an import: the start time of its activity).
  std::uint32_t ghost(std::uint64_t key, int process, Rank lane, Ticks t, bool import) {
    const std::uint32_t v = new_vertex(t, kNone);
    pag_.ghosts.push_back({v, process, lane, kNone, import});
    ghost_keys_.push_back(key);
    return v;
  }

  // Each ghost learns where the other end of its crossing (the ghost of the same key there) stands
  // in that process's list (PagGhost::peer), so that the values and walks that cross name it.
  void pair_ghosts() {
    struct Place {
      int process;
      std::uint64_t key;
      std::uint32_t ghost;
      auto operator<=>(const Place&) const = default;
    };
    std::vector<Place> places(pag_.ghosts.size());
    for (std::uint32_t k = 0; k < places.size(); ++k) places[k] = {pag_.ghosts[k].process, ghost_keys_[k], k};
    ghost_keys_ = {};
    std::sort(places.begin(), places.end());  // both ends list a pair's crossings in key order
    const auto same = [](const Place& a, const Place& b) { return a.process == b.process && a.key == b.key; };
    if (std::adjacent_find(places.begin(), places.end(), same) != places.end())
      throw Error("activity graph over processes: two ghosts here stand for one crossing");
    std::vector<Packer> out(static_cast<std::size_t>(group_->processes()));
    for (const Place& x : places) out[static_cast<std::size_t>(x.process)].put(x.key).put(x.ghost);
    std::vector<std::string> packets;
    for (Packer& p : out) packets.push_back(p.take());
    const std::vector<std::string> in = group_->exchange(std::move(packets));
    auto mine = places.begin();
    for (std::size_t p = 0; p < in.size(); ++p) {
      for (Unpacker u(in[p]); !u.done(); ++mine) {
        const auto key = u.get<std::uint64_t>();
        const auto theirs = u.get<std::uint32_t>();
        if (mine == places.end() || mine->process != static_cast<int>(p) || mine->key != key)
          throw Error(fmt::format("activity graph over processes: a ghost of process {} has no other end here", p));
        pag_.ghosts[mine->ghost].peer = theirs;
      }
    }
    if (mine != places.end()) throw Error("activity graph over processes: a ghost here has no other end");
  }

  // An activity from here to a vertex on another process, added where the whole graph has it:
  // among the activities of its target's rank, in the order of the event they are found at.
  struct Export {
    Rank rank;
    EventIndex event;
    std::uint32_t from;
    std::uint64_t key;
    int process;
    ActivityKind kind;
    Variant variants;
  };
  void add_exports_before(Rank r) {
    if (!spread_) return;
    if (!exports_sorted_) {
      std::stable_sort(exports_.begin(), exports_.end(), [](const Export& a, const Export& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.event < b.event;
      });
      exports_sorted_ = true;
    }
    for (; next_export_ < exports_.size() && exports_[next_export_].rank < r; ++next_export_) {
      const Export& e = exports_[next_export_];
      Activity a{0, e.from, ghost(e.key, e.process, e.rank, 0, false), kNone, e.kind};
      a.variants = e.variants;
      g_.add_activity(a);
    }
    if (r == trace_.rank_count()) exports_ = {};
  }

  // The start is process 0's: it launches the others' ranks (those with events) through ghosts.
  void add_launch_exports() {
    Packer mine;
    for (Rank r = trace_.share->first; r < trace_.share->last; ++r)
      mine.put(static_cast<std::uint8_t>(!trace_.ranks[r].events.empty()));
    const std::vector<std::string> parts = all_gather(*group_, mine.take());
    if (me_ != 0) return;
    for (std::size_t p = 1; p < parts.size(); ++p) {
      Unpacker in(parts[p]);
      for (Rank r = shares_[p].first; r < shares_[p].last; ++r)
        if (in.get<std::uint8_t>() != 0)
          exports_.push_back({r, 0, Pag::kStart, ghost_key(Crossing::Launch, r), static_cast<int>(p),
                              ActivityKind::Launch, kBothVariants});
    }
  }

  // Each side of a message whose other side is on another process goes there; from what arrives,
  // the dependencies that leave this process's sides (exports_).
  void exchange_sides() {
    std::vector<Packer> out(static_cast<std::size_t>(group_->processes()));
    targets_.resize(trace_.rank_count());
    for (Rank r = trace_.share->first; r < trace_.share->last; ++r) index_targets(r);
    for (std::size_t k = 0; k < trace_.messages.size(); ++k) {
      const Message& m = trace_.messages[k];
      const bool send_here = local(m.sender), recv_here = local(m.receiver);
      if (send_here == recv_here) continue;
      out[static_cast<std::size_t>(owner(send_here ? m.receiver : m.sender))].put(
          send_here ? side(m.sender, m.send, trace_.message_id(k)) : side(m.receiver, m.recv, trace_.message_id(k)));
    }
    std::vector<std::string> packets;
    for (Packer& p : out) packets.push_back(p.take());
    for (const std::string& packet : group_->exchange(std::move(packets))) {
      Unpacker in(packet);
      while (!in.done()) {
        const SideFact f = in.get<SideFact>();
        remote_sides_.emplace(f.message, f);
      }
    }
    for (std::size_t k = 0; k < trace_.messages.size(); ++k) {
      const Message& m = trace_.messages[k];
      const bool send_here = local(m.sender), recv_here = local(m.receiver);
      if (send_here == recv_here) continue;
      const std::uint32_t id = trace_.message_id(k);
      const SideFact& other = remote_sides_.at(id);
      if (send_here) {  // the message, if its receive completes after the send starts
        const std::uint32_t sent = p2p_vertex_[m.sender][m.send];
        if (sent != kNone && other.target != kMissing && p2p_ticks_[m.sender][m.send] <= other.target)
          exports_.push_back({m.receiver, other.target_event, sent, ghost_key(Crossing::Message, id), owner(m.receiver),
                              ActivityKind::Message, kBothVariants});
        continue;
      }
      const std::uint32_t posted = p2p_vertex_[m.receiver][m.recv];  // the rendezvous, as the sender adds it
      if (posted == kNone || other.target == kMissing) continue;
      const Variant variants = rendezvous_variants(other.at == kMissing ? 0 : other.at, p2p_ticks_[m.receiver][m.recv],
                                                   other.target, other.bytes);
      if (variants != 0)
        exports_.push_back({m.sender, other.target_event, posted, ghost_key(Crossing::Rendezvous, id), owner(m.sender),
                            ActivityKind::Rendezvous, variants});
    }
    targets_ = {};
  }

  // Rank r's message sides' completions (the events collect_dependencies() finds them at).
  void index_targets(Rank r) {
    const RankTrace& rt = trace_.ranks[r];
    targets_[r].assign(rt.p2p.size(), {kNone, kMissing});
    for (std::size_t c = 0; c < rt.mpi_calls.size();) {
      const CallSpan call = rt.mpi_calls[c];
      for (EventIndex i = call.enter + 1; i <= call.leave; ++i) {
        const Event& e = rt.events[i];
        if (e.kind == EventKind::MpiRecv || e.kind == EventKind::MpiIrecv || e.kind == EventKind::MpiIsendComplete)
          targets_[r][e.p2p()] = {i, ticks(e.time)};
        else if (e.kind == EventKind::MpiSend)
          targets_[r][e.p2p()] = {i, ticks(rt.events[call.leave].time)};
      }
      while (c < rt.mpi_calls.size() && rt.mpi_calls[c].enter <= call.leave) ++c;  // nested calls
    }
  }
  SideFact side(Rank r, std::uint32_t record, std::uint32_t id) const {
    const bool has_at = p2p_vertex_[r][record] != kNone;
    return {id, targets_[r][record].first, has_at ? p2p_ticks_[r][record] : kMissing, targets_[r][record].second,
            trace_.ranks[r].p2p[record].bytes};
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

  // The variants in which a send that started at `start` and completed at `done` waits for its
  // receive, posted at `post`.
  Variant rendezvous_variants(Ticks start, Ticks post, Ticks done, std::uint64_t bytes) const {
    const auto depends = [&](RendezvousRule rule, std::uint64_t eager_limit) {
      return rule == RendezvousRule::Observed ? start < post && post <= done : bytes > eager_limit && post <= done;
    };
    Variant variants = depends(options_.rendezvous, options_.eager_limit) ? kFirstVariant : 0;
    if (options_.ideal_eager_limit && depends(RendezvousRule::EagerLimit, *options_.ideal_eager_limit))
      variants |= kSecondVariant;
    return variants;
  }

  const Message& message_of(std::uint32_t id) const { return spread_ ? trace_.message(id) : trace_.messages[id]; }

  void rendezvous(Rank r, std::uint32_t record, std::uint32_t completion) {
    const P2P& send = trace_.ranks[r].p2p[record];
    if (send.message == kNone) return;
    const Message& m = message_of(send.message);
    const bool here = local(m.receiver);
    const SideFact* other = here ? nullptr : &remote_sides_.at(send.message);
    if (here ? p2p_vertex_[m.receiver][m.recv] == kNone : other->at == kMissing) return;
    const Ticks post = here ? p2p_ticks_[m.receiver][m.recv] : other->at;
    const Variant variants = rendezvous_variants(p2p_ticks_[r][record], post, own_at(completion), send.bytes);
    if (variants == 0) return;
    const std::uint32_t posted =
        here ? p2p_vertex_[m.receiver][m.recv]
             : ghost(ghost_key(Crossing::Rendezvous, send.message), owner(m.receiver), m.receiver, post, true);
    deps_.push_back({posted, completion, post, ActivityKind::Rendezvous, variants});
  }

  void message(const P2P& recv, std::uint32_t completion) {
    if (recv.message == kNone) return;
    const Message& m = message_of(recv.message);
    const bool here = local(m.sender);
    const SideFact* other = here ? nullptr : &remote_sides_.at(recv.message);
    if (here ? p2p_vertex_[m.sender][m.send] == kNone : other->at == kMissing)
      return;  // a send record with no send event: no dependency
    const Ticks sent_at = here ? p2p_ticks_[m.sender][m.send] : other->at;
    if (sent_at > own_at(completion)) {
      ++pag_.anomalies.receive_before_send;  // treated as a local operation (paper 003 §4.0.1)
      return;
    }
    const std::uint32_t sent =
        here ? p2p_vertex_[m.sender][m.send]
             : ghost(ghost_key(Crossing::Message, recv.message), owner(m.sender), m.sender, sent_at, true);
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
      pag_.tight += d.from_time == own_at(d.to) ? 1 : 0;
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
    const std::uint32_t start =
        spread_ && me_ != 0 ? ghost(ghost_key(Crossing::Launch, r), 0, kNone, pag_.origin, true) : Pag::kStart;
    g_.add_activity({own_at(first) - pag_.origin, start, first, kLaunchCallpath, ActivityKind::Launch});
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
  ProcessGroup* group_;  // spread over processes (else nullptr)
  bool spread_;
  std::vector<RankShare> shares_;
  int me_ = 0;
  std::vector<std::uint64_t> ghost_keys_;                           // per ghost until pair_ghosts(): its crossing's key
  std::unordered_map<std::uint32_t, SideFact> remote_sides_;        // by message: the side on another process
  std::vector<std::vector<std::pair<EventIndex, Ticks>>> targets_;  // exchange_sides(): per local side
  std::vector<Export> exports_;
  std::size_t next_export_ = 0;
  bool exports_sorted_ = false;
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

const PagGhost* Pag::ghost_at(std::uint32_t v) const {
  const auto it = std::lower_bound(ghosts.begin(), ghosts.end(), v,
                                   [](const PagGhost& g, std::uint32_t x) { return g.vertex < x; });
  return it != ghosts.end() && it->vertex == v ? &*it : nullptr;
}

std::uint32_t Pag::arrival(std::uint32_t ghost, bool import) const {
  if (ghost >= ghosts.size() || ghosts[ghost].import != import)
    throw Error("activity graph over processes: a value or a walk arrived for no ghost here");
  return ghosts[ghost].vertex;
}

Pag build_pag(const Trace& trace, const PagOptions& options) {
  Pag pag;
  Builder(trace, options, pag).run();
  return pag;
}

Pag build_pag(const Trace& trace, const PagOptions& options, ProcessGroup& group) {
  if (!trace.share) return build_pag(trace, options);
  Pag pag;
  Builder(trace, options, pag, &group).run();
  return pag;
}

PagAnomalies anomalies_over(const Pag& pag, ProcessGroup& group) {
  if (!pag.spread) return pag.anomalies;
  const std::array<std::uint64_t, 3> mine{pag.anomalies.receive_before_send, pag.anomalies.inconsistent_collectives,
                                          pag.anomalies.cycle_activities};
  PagAnomalies all;
  for (const std::string& part : all_gather(group, packed(mine))) {
    const auto theirs = Unpacker(part).get<std::array<std::uint64_t, 3>>();
    all.receive_before_send += theirs[0];
    all.inconsistent_collectives += theirs[1];
    all.cycle_activities += theirs[2];
  }
  return all;
}

}  // namespace wisp
