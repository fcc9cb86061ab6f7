// The ideal-network clock replay over processes. See ideal_clock_spread.hpp.
//
// It computes what the PAG's ideal variant gives (pag.cpp: the same dependencies, the same
// durations, the same release times) without building a graph: a rank's clock advances by its
// computation time between events outside MPI calls and takes the max with the clocks its
// dependencies bring. First the facts that decide which dependencies exist cross once (a message
// side's times, a summary of each process's members of a collective instance), so that a rank
// waits only for clocks that will come; then the ranks advance, exchanging clocks in rounds,
// until every rank is done (or none can go on: a cycle).
#include "wisp/analysis/ideal_clock_spread.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "analysis/pop_timers.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

constexpr Ticks kMissing = std::numeric_limits<Ticks>::min();

// The clocks that cross ranks, by key: a send's start (to its receive's completion), a receive's
// posting (to a rendezvous send's completion), a process's feeding members of a collective
// instance (their largest clock at the begin) and, for prefix operations, one member's clock.
enum Key : std::uint8_t { kStart, kPost, kPartial, kMember };
std::uint64_t key_of(Key k, std::uint64_t a, std::uint64_t b = 0) { return (std::uint64_t{k} << 62) | (a << 30) | b; }

// A message side's times: where a dependency leaves it (a send's start, a receive's posting) and
// where one arrives (a receive's completion; a send's completion above the eager limit).
struct Side {
  Ticks at = kMissing;
  Ticks target = kMissing;
  EventIndex at_event = kNone;
};
struct SideFact {
  std::uint32_t message = 0;
  Ticks at = kMissing, target = kMissing;
};

// One process's members of a collective instance, summarised for the others.
struct InstanceSummary {
  std::uint32_t instance = 0;
  std::uint8_t all_have = 1;  // every member here has a begin and an end
  std::uint8_t has_root = 0;
  Ticks max_begin = kMissing, min_end = std::numeric_limits<Ticks>::max();
  Ticks root_begin = kMissing, root_end = kMissing;
};
struct MemberFact {  // prefix operations: every member's times
  std::uint32_t instance = 0, member = 0;
  Ticks begin = kMissing, end = kMissing;
};

// A local member's part in its instance's synchronisation (PAG: the hub).
struct Role {
  std::uint32_t instance = kNone;
  std::uint32_t member = 0;
  Ticks hub_time = 0;
  bool feeds = false, waits = false, replaced = false;
};

// An instance with members here: where the clocks of its hub come from and go to.
struct Instance {
  bool prefix = false;
  std::vector<int> feeders;     // not prefix: the processes whose partial the hub takes
  std::vector<int> partial_to;  // not prefix: where this process's partial goes
  std::uint32_t count = 0;
  std::uint32_t local_feeders = 0;  // feeding members here not at their begin yet
  std::uint32_t consumers = 0;      // waiting members here that have not taken the hub's clock yet
  Ticks partial = kMissing;
};

enum class DepKind : std::uint8_t { Start, Post, Hub };
struct Dep {  // a dependency into event `target` of a rank
  EventIndex target;
  DepKind kind;
  std::uint32_t a, b;  // Start/Post: the message; Hub: the instance and the member
};
struct Publication {  // a clock that leaves at event `event`
  EventIndex event;
  Key key;
  int to;  // the process it goes to (kPartial: the instance's own list)
  std::uint32_t a, b;
};

struct RoundState {
  std::uint64_t sent = 0, deferred = 0, unfinished = 0;
};

class ClockReplay {
 public:
  ClockReplay(const Trace& trace, std::uint64_t eager_limit, ProcessGroup& group, std::size_t round_bytes,
              ClockTransport transport, PopSamples& samples)
      : trace_(trace),
        limit_(eager_limit),
        group_(group),
        round_bytes_(round_bytes),
        transport_(transport),
        me_(group.process()),
        tps_(static_cast<double>(trace.defs.clock.ticks_per_second)),
        sink_(samples),
        calls_(trace.rank_count()),
        feed_(trace, calls_, tps_, sink_) {}

  // The largest clock of this process's ranks; nullopt on a cycle.
  std::optional<Ticks> run() {
    shares_ = gather_shares(group_, *trace_.share);
    const RankShare own = *trace_.share;
    sides_.resize(trace_.rank_count());
    outer_.resize(trace_.rank_count());
    for (Rank r = own.first; r < own.last; ++r) index_sides(r);
    exchange_sides();
    decide_collectives();
    deps_.resize(trace_.rank_count());
    pubs_.resize(trace_.rank_count());
    replaced_.resize(trace_.rank_count());
    for (Rank r = own.first; r < own.last; ++r) build_rank(r);
    sides_ = {};
    outer_ = {};
    remote_ = {};
    roles_ = {};
    if (transport_ == ClockTransport::Automatic) {
      std::uint64_t tight = 0;
      for (const std::string& part : all_gather(group_, packed(tight_))) tight += Unpacker(part).get<std::uint64_t>();
      transport_ = tight == 0 ? ClockTransport::PointToPoint : ClockTransport::Rounds;
      spdlog::debug("POP over processes, process {}: {} tight dependencies, clocks cross {}", me_, tight,
                    tight == 0 ? "point to point" : "in rounds");
    }
    return transport_ == ClockTransport::PointToPoint ? replay_point_to_point() : replay();
  }

 private:
  Ticks ticks(double seconds) const { return std::llround(seconds * tps_); }
  Ticks at(Rank r, EventIndex i) const { return ticks(trace_.ranks[r].events[i].time); }
  int owner(Rank r) const { return owner_of(shares_, r); }

  // ---- the facts ----

  // Rank r's message sides (as the PAG builder's index_calls and collect_dependencies find them)
  // and its outermost MPI calls.
  void index_sides(Rank r) {
    const RankTrace& rt = trace_.ranks[r];
    std::vector<Side>& sides = sides_[r];
    sides.assign(rt.p2p.size(), Side{});
    EventIndex call = kNone;
    for (EventIndex i = 0; i < rt.events.size(); ++i) {
      const Event& e = rt.events[i];
      if (e.kind == EventKind::Enter || e.kind == EventKind::Leave) {
        if (is_mpi(trace_.defs.region_of(e.ref).kind)) call = e.kind == EventKind::Enter ? i : kNone;
        continue;
      }
      if (e.kind != EventKind::MpiSend && e.kind != EventKind::MpiIsend && e.kind != EventKind::MpiRecv &&
          e.kind != EventKind::MpiIrecv)
        continue;
      const P2P& p = rt.p2p[e.ref];
      if (p.event != i) continue;
      const EventIndex from =
          p.is_send() ? (call != kNone ? call : i) : (p.request_event != kNone ? p.request_event : call);
      if (from == kNone) continue;
      sides[e.ref].at = at(r, from);
      sides[e.ref].at_event = from;
    }
    for (const CallSpan& c : rt.mpi_calls)
      if (outer_[r].empty() || c.enter > outer_[r].back().leave) outer_[r].push_back(c);
    for (const CallSpan& c : outer_[r])
      for (EventIndex i = c.enter + 1; i <= c.leave; ++i) {
        const Event& e = rt.events[i];
        if (e.kind == EventKind::MpiRecv || e.kind == EventKind::MpiIrecv)
          sides[e.ref].target = at(r, i);
        else if ((e.kind == EventKind::MpiIsendComplete || e.kind == EventKind::MpiSend) &&
                 rt.p2p[e.ref].bytes > limit_)
          sides[e.ref].target = at(r, e.kind == EventKind::MpiSend ? c.leave : i);
      }
  }

  // Each side of a message whose other side is on another process goes there.
  void exchange_sides() {
    std::vector<Packer> out(static_cast<std::size_t>(group_.processes()));
    for (Rank r = trace_.share->first; r < trace_.share->last; ++r)
      for (std::uint32_t k = 0; k < trace_.ranks[r].p2p.size(); ++k) {
        const P2P& p = trace_.ranks[r].p2p[k];
        if (p.message == kNone) continue;
        const Message& m = trace_.message(p.message);
        const Rank other = p.is_send() ? m.receiver : m.sender;
        if (trace_.holds(other)) continue;
        const Side& s = sides_[r][k];
        out[static_cast<std::size_t>(owner(other))].put(SideFact{p.message, s.at, s.target});
      }
    std::vector<std::string> packets;
    for (Packer& p : out) packets.push_back(p.take());
    for (const std::string& packet : group_.exchange(std::move(packets))) {
      Unpacker in(packet);
      while (!in.done()) remote_.push_back(in.get<SideFact>());
    }
    std::sort(remote_.begin(), remote_.end(),
              [](const SideFact& a, const SideFact& b) { return a.message < b.message; });
  }

  // A message's side (send or receive), wherever it is.
  std::pair<Ticks, Ticks> side(std::uint32_t message, bool send) const {
    const Message& m = trace_.message(message);
    const Rank r = send ? m.sender : m.receiver;
    if (trace_.holds(r)) {
      const Side& s = sides_[r][send ? m.send : m.recv];
      return {s.at, s.target};
    }
    const auto it = std::lower_bound(remote_.begin(), remote_.end(), message,
                                     [](const SideFact& f, std::uint32_t id) { return f.message < id; });
    if (it == remote_.end() || it->message != message)
      throw Error("POP over processes: a message side did not arrive from its process");
    return {it->at, it->target};
  }

  // ---- collectives: the PAG builder's add_instance, from summaries of each process's members ----

  struct Pending {
    std::uint32_t instance;
    std::vector<int> owners;  // processes with members, ascending
    InstanceSummary mine;
  };

  void decide_collectives() {
    roles_.resize(trace_.rank_count());
    for (Rank r = trace_.share->first; r < trace_.share->last; ++r)
      roles_[r].assign(trace_.ranks[r].collectives.size(), Role{});
    std::vector<Packer> out(static_cast<std::size_t>(group_.processes()));
    std::vector<Pending> pending;
    std::vector<MemberFact> facts;  // prefix operations
    for (std::uint32_t i = 0; i < trace_.collectives.size(); ++i) {
      const CollectiveInstance& inst = trace_.collectives[i];
      if (!inst.complete || inst.count < 2) continue;
      Pending p{i, {}, {}};
      p.mine.instance = i;
      bool local = false;
      for (std::uint32_t j = 0; j < inst.count; ++j) {
        const CollectiveMember& m = trace_.members(inst)[j];
        p.owners.push_back(owner(m.rank));
        if (!trace_.holds(m.rank)) continue;
        local = true;
        const MemberFact f = member_fact(i, j, m);
        summarise(p.mine, f, m.rank == inst.root);
        if (classify(inst.op) == CollectiveClass::Prefix) facts.push_back(f);
      }
      if (!local) continue;
      std::sort(p.owners.begin(), p.owners.end());
      p.owners.erase(std::unique(p.owners.begin(), p.owners.end()), p.owners.end());
      for (const int o : p.owners)
        if (o != me_) out[static_cast<std::size_t>(o)].put(p.mine);
      pending.push_back(std::move(p));
    }
    // Prefix operations' member facts go after the summaries (a count leads each part).
    std::vector<std::string> packets(out.size());
    for (std::size_t o = 0; o < out.size(); ++o) {
      Packer head;
      head.put<std::uint64_t>(out[o].size() / sizeof(InstanceSummary));
      packets[o] = head.take() + out[o].take();
    }
    for (const MemberFact& f : facts)
      for (const int o : owners_of(trace_.collectives[f.instance]))
        if (o != me_) packets[static_cast<std::size_t>(o)] += packed(f);
    std::vector<InstanceSummary> summaries;
    for (const std::string& packet : group_.exchange(std::move(packets))) {
      Unpacker in(packet);
      const auto n = in.get<std::uint64_t>();
      for (std::uint64_t k = 0; k < n; ++k) summaries.push_back(in.get<InstanceSummary>());
      while (!in.done()) facts.push_back(in.get<MemberFact>());
    }
    const auto by_instance = [](const auto& a, const auto& b) { return a.instance < b.instance; };
    std::stable_sort(summaries.begin(), summaries.end(), by_instance);
    std::sort(facts.begin(), facts.end(), [](const MemberFact& a, const MemberFact& b) {
      return a.instance != b.instance ? a.instance < b.instance : a.member < b.member;
    });
    for (Pending& p : pending) {
      InstanceSummary all = p.mine;
      const auto [first, last] = std::equal_range(summaries.begin(), summaries.end(), p.mine, by_instance);
      for (auto it = first; it != last; ++it) merge(all, *it);
      const CollectiveInstance& inst = trace_.collectives[p.instance];
      if (classify(inst.op) == CollectiveClass::Prefix)
        decide_prefix(p, facts);
      else
        decide(p, all);
    }
  }

  MemberFact member_fact(std::uint32_t instance, std::uint32_t member, const CollectiveMember& m) const {
    const CollectiveRecord& rec = trace_.ranks[m.rank].collectives[m.record];
    return MemberFact{instance, member, rec.begin == kNone ? kMissing : at(m.rank, rec.begin),
                      rec.end == kNone ? kMissing : at(m.rank, rec.end)};
  }

  static void summarise(InstanceSummary& s, const MemberFact& f, bool root) {
    if (f.begin == kMissing || f.end == kMissing) {
      s.all_have = 0;
      return;
    }
    s.max_begin = std::max(s.max_begin, f.begin);
    s.min_end = std::min(s.min_end, f.end);
    if (root) {
      s.has_root = 1;
      s.root_begin = f.begin;
      s.root_end = f.end;
    }
  }
  static void merge(InstanceSummary& all, const InstanceSummary& s) {
    all.all_have &= s.all_have;
    all.max_begin = std::max(all.max_begin, s.max_begin);
    all.min_end = std::min(all.min_end, s.min_end);
    if (s.has_root) {
      all.has_root = 1;
      all.root_begin = s.root_begin;
      all.root_end = s.root_end;
    }
  }

  std::vector<int> owners_of(const CollectiveInstance& inst) const {
    std::vector<int> owners;
    for (std::uint32_t j = 0; j < inst.count; ++j) owners.push_back(owner(trace_.members(inst)[j].rank));
    std::sort(owners.begin(), owners.end());
    owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
    return owners;
  }

  // Not a prefix operation: one hub at the latest begin (the root's begin for 1 -> N), fed by
  // every member (the root only for 1 -> N), waited for by every member (the root only for N -> 1).
  void decide(const Pending& p, const InstanceSummary& all) {
    const CollectiveInstance& inst = trace_.collectives[p.instance];
    const CollectiveClass cls = classify(inst.op);
    const bool rooted = cls == CollectiveClass::OneToN || cls == CollectiveClass::NToOne;
    if (!all.all_have || (rooted && !all.has_root)) return;
    const Ticks hub = cls == CollectiveClass::OneToN ? all.root_begin : all.max_begin;
    const bool inconsistent = cls == CollectiveClass::NToOne ? all.root_end < all.max_begin : all.min_end < hub;
    if (inconsistent) return;
    Instance state;
    state.count = inst.count;
    const int root_owner = rooted ? owner(inst.root) : -1;
    state.feeders = cls == CollectiveClass::OneToN ? std::vector<int>{root_owner} : p.owners;
    state.partial_to = cls == CollectiveClass::NToOne ? std::vector<int>{root_owner} : p.owners;
    for (std::uint32_t j = 0; j < inst.count; ++j) {
      const CollectiveMember& m = trace_.members(inst)[j];
      if (!trace_.holds(m.rank)) continue;
      const bool is_root = m.rank == inst.root;
      Role& role = roles_[m.rank][m.record];
      role = Role{p.instance, j, hub, cls != CollectiveClass::OneToN || is_root,
                  cls != CollectiveClass::NToOne || is_root};
      role.replaced = role.feeds && role.waits;
      state.local_feeders += role.feeds ? 1 : 0;
      state.consumers += role.waits ? 1 : 0;
    }
    instances_.emplace(p.instance, std::move(state));
  }

  // Scan, Exscan: member j waits for members 0 .. j (a hub per member at their latest begin).
  void decide_prefix(const Pending& p, const std::vector<MemberFact>& facts) {
    const CollectiveInstance& inst = trace_.collectives[p.instance];
    const auto first = std::lower_bound(facts.begin(), facts.end(), p.instance,
                                        [](const MemberFact& f, std::uint32_t i) { return f.instance < i; });
    if (static_cast<std::size_t>(facts.end() - first) < inst.count) return;
    std::vector<Ticks> release(inst.count);
    Ticks prefix = kMissing;
    for (std::uint32_t j = 0; j < inst.count; ++j) {
      const MemberFact& f = first[j];
      if (f.instance != p.instance || f.member != j || f.begin == kMissing || f.end == kMissing) return;
      prefix = std::max(prefix, f.begin);
      if (f.end < prefix) return;  // inconsistent
      release[j] = prefix;
    }
    Instance state;
    state.prefix = true;
    state.count = inst.count;
    for (std::uint32_t j = 0; j < inst.count; ++j) {
      const CollectiveMember& m = trace_.members(inst)[j];
      if (!trace_.holds(m.rank)) continue;
      roles_[m.rank][m.record] = Role{p.instance, j, release[j], true, true, true};
      ++state.consumers;
    }
    instances_.emplace(p.instance, std::move(state));
  }

  // ---- a rank's dependencies, publications and calls ----

  void build_rank(Rank r) {
    const RankTrace& rt = trace_.ranks[r];
    std::vector<Publication>& pubs = pubs_[r];
    for (std::uint32_t k = 0; k < rt.p2p.size(); ++k) {
      const P2P& p = rt.p2p[k];
      const Side& s = sides_[r][k];
      if (p.message == kNone || s.at == kMissing) continue;
      const Message& m = trace_.message(p.message);
      // A send's start reaches its receive's completion unless the receive ended first; a receive's
      // posting reaches a send above the eager limit that completed after it.
      const Ticks target = side(p.message, !p.is_send()).second;
      if (target != kMissing && s.at <= target)
        pubs.push_back(
            {s.at_event, p.is_send() ? kStart : kPost, owner(p.is_send() ? m.receiver : m.sender), p.message, 0});
    }
    replaced_[r].assign(rt.collectives.size(), 0);
    for (std::uint32_t k = 0; k < rt.collectives.size(); ++k) {
      const Role& role = roles_[r][k];
      if (role.instance == kNone) continue;
      replaced_[r][k] = role.replaced ? 1 : 0;
      if (!role.feeds) continue;
      const EventIndex begin = rt.collectives[k].begin;
      if (!instances_.at(role.instance).prefix) {
        pubs.push_back({begin, kPartial, me_, role.instance, role.member});
        continue;
      }
      const CollectiveInstance& inst = trace_.collectives[role.instance];
      std::vector<int> to;  // the processes with members j or later: they wait for member j
      for (std::uint32_t j = role.member; j < inst.count; ++j) to.push_back(owner(trace_.members(inst)[j].rank));
      std::sort(to.begin(), to.end());
      to.erase(std::unique(to.begin(), to.end()), to.end());
      for (const int o : to) pubs.push_back({begin, kMember, o, role.instance, role.member});
    }
    std::stable_sort(pubs.begin(), pubs.end(),
                     [](const Publication& a, const Publication& b) { return a.event < b.event; });
    for (const CallSpan& c : outer_[r]) add_call(r, c);
  }

  // The call's dependencies (ideal network) and its release: the latest start of them, or its enter.
  void add_call(Rank r, const CallSpan& call) {
    const RankTrace& rt = trace_.ranks[r];
    std::vector<Dep>& deps = deps_[r];
    const std::size_t first = deps.size();
    Ticks release = at(r, call.enter);
    const auto rendezvous = [&](std::uint32_t record, EventIndex target) {
      const P2P& send = rt.p2p[record];
      if (send.message == kNone || send.bytes <= limit_) return;
      const Ticks post = side(send.message, false).first;
      if (post == kMissing || post > at(r, target)) return;
      tight_ += post == at(r, target) ? 1 : 0;
      deps.push_back({target, DepKind::Post, send.message, 0});
      release = std::max(release, post);
    };
    for (EventIndex i = call.enter + 1; i <= call.leave; ++i) {
      const Event& e = rt.events[i];
      switch (e.kind) {
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv: {
          const P2P& recv = rt.p2p[e.ref];
          if (recv.message == kNone) break;
          const Ticks sent = side(recv.message, true).first;
          if (sent == kMissing || sent > at(r, i)) break;
          tight_ += sent == at(r, i) ? 1 : 0;
          deps.push_back({i, DepKind::Start, recv.message, 0});
          release = std::max(release, sent);
          break;
        }
        case EventKind::MpiIsendComplete:
          rendezvous(e.ref, i);
          break;
        case EventKind::MpiSend:
          rendezvous(e.ref, call.leave);
          break;
        case EventKind::MpiCollectiveEnd: {
          const Role& role = roles_[r][e.ref];
          if (role.instance == kNone || !role.waits) break;
          tight_ += role.hub_time == at(r, i) ? 1 : 0;
          deps.push_back({i, DepKind::Hub, role.instance, role.member});
          release = std::max(release, role.hub_time);
          break;
        }
        default:
          break;
      }
    }
    std::stable_sort(deps.begin() + static_cast<std::ptrdiff_t>(first), deps.end(),
                     [](const Dep& a, const Dep& b) { return a.target < b.target; });
    calls_[r].push_back(PagCall{call.enter, call.leave, release});
  }

  // ---- the replay ----

  struct Cursor {
    EventIndex next = 0;
    Ticks previous = 0;  // the clock at event next - 1
    std::size_t dep = 0, pub = 0, call = 0;
  };

  std::optional<Ticks> replay() {
    outbox_.assign(static_cast<std::size_t>(group_.processes()), Packer());
    cursor_.resize(trace_.rank_count());
    unfinished_ = trace_.share->size();
    for (Rank r = trace_.share->last; r-- > trace_.share->first;) ready_.push_back(r);
    while (true) {
      while (!ready_.empty()) {
        const Rank r = ready_.back();
        ready_.pop_back();
        advance(r);
      }
      const RoundState all = exchange();
      if (all.unfinished == 0) break;
      if (all.sent == 0 && all.deferred == 0) return std::nullopt;  // every rank waits: a cycle
      ready_.insert(ready_.end(), deferred_.rbegin(), deferred_.rend());
      deferred_.clear();
    }
    feed_.finish();
    return length_;
  }

  // Point to point: a process's clocks go out when its ranks all wait (or many are ready), and it
  // waits for the next message; no cycle (no tight dependency), so every process finishes.
  std::optional<Ticks> replay_point_to_point() {
    outbox_.assign(static_cast<std::size_t>(group_.processes()), Packer());
    cursor_.resize(trace_.rank_count());
    unfinished_ = trace_.share->size();
    for (Rank r = trace_.share->last; r-- > trace_.share->first;) ready_.push_back(r);
    while (true) {
      while (!ready_.empty()) {
        const Rank r = ready_.back();
        ready_.pop_back();
        advance(r);
      }
      flush();
      if (unfinished_ == 0) break;
      const std::string message = group_.receive();
      Unpacker in(message);
      while (!in.done()) {
        const auto key = in.get<std::uint64_t>();
        deliver(key, in.get<Ticks>());
      }
    }
    feed_.finish();
    return length_;
  }
  void flush() {
    for (std::size_t p = 0; p < outbox_.size(); ++p)
      if (outbox_[p].size() > 0) {
        group_.send(static_cast<int>(p), outbox_[p].take());
        outbox_[p] = Packer();
      }
    outbox_bytes_ = 0;
  }

  void advance(Rank r) {
    Cursor& c = cursor_[r];
    const std::vector<Event>& events = trace_.ranks[r].events;
    const std::vector<Dep>& deps = deps_[r];
    while (c.next < events.size()) {
      if (outbox_bytes_ >= round_bytes_ && transport_ == ClockTransport::PointToPoint) flush();
      if (outbox_bytes_ >= round_bytes_) {  // this round's clocks are many: the rest next round
        deferred_.push_back(r);
        return;
      }
      const EventIndex i = c.next;
      Ticks clock = i == 0 ? 0 : std::max<Ticks>(0, c.previous + chain(r, c, i - 1));
      if (i > 0 && replaced(r, i)) clock = 0;  // the hub alone leads to it
      std::size_t d = c.dep;
      for (; d < deps.size() && deps[d].target == i; ++d) {
        Ticks brought = 0;
        std::uint64_t missing = 0;
        if (!clock_of(deps[d], brought, missing)) {
          waiters_.emplace(missing, r);
          return;
        }
        clock = std::max(clock, brought);
      }
      for (; c.dep < d; ++c.dep) taken(deps[c.dep]);
      const std::vector<Publication>& pubs = pubs_[r];
      for (; c.pub < pubs.size() && pubs[c.pub].event == i; ++c.pub) publish(pubs[c.pub], clock);
      feed_.visit(r, i, clock);
      length_ = std::max(length_, clock);
      c.previous = clock;
      ++c.next;
    }
    --unfinished_;
  }

  // The duration of the chain v -> v + 1 in the ideal clock: its computation time outside MPI calls.
  Ticks chain(Rank r, Cursor& c, EventIndex v) const {
    const std::vector<PagCall>& calls = calls_[r];
    while (c.call < calls.size() && calls[c.call].leave <= v) ++c.call;
    if (c.call < calls.size() && calls[c.call].enter <= v) return 0;
    return at(r, v + 1) - at(r, v);
  }
  // The chain begin -> end of a collective belongs to its hub.
  bool replaced(Rank r, EventIndex i) const {
    const std::vector<Event>& ev = trace_.ranks[r].events;
    return ev[i].kind == EventKind::MpiCollectiveEnd && ev[i - 1].kind == EventKind::MpiCollectiveBegin &&
           replaced_[r][ev[i].ref] != 0;
  }

  bool value(std::uint64_t key, Ticks& into, std::uint64_t& missing) const {
    const auto it = values_.find(key);
    if (it == values_.end()) {
      missing = key;
      return false;
    }
    into = std::max(into, it->second);
    return true;
  }
  // The clock a dependency brings, or false and the key it waits for.
  bool clock_of(const Dep& d, Ticks& brought, std::uint64_t& missing) const {
    if (d.kind == DepKind::Start) return value(key_of(kStart, d.a), brought, missing);
    if (d.kind == DepKind::Post) return value(key_of(kPost, d.a), brought, missing);
    const Instance& inst = instances_.at(d.a);
    if (inst.prefix) {
      for (std::uint32_t j = 0; j <= d.b; ++j)
        if (!value(key_of(kMember, d.a, j), brought, missing)) return false;
      return true;
    }
    for (const int p : inst.feeders)
      if (!value(key_of(kPartial, d.a, static_cast<std::uint64_t>(p)), brought, missing)) return false;
    return true;
  }
  void taken(const Dep& d) {
    if (d.kind != DepKind::Hub) {
      values_.erase(key_of(d.kind == DepKind::Start ? kStart : kPost, d.a));
      return;
    }
    const auto it = instances_.find(d.a);
    Instance& inst = it->second;
    if (--inst.consumers > 0) return;
    if (inst.prefix)
      for (std::uint32_t j = 0; j < inst.count; ++j) values_.erase(key_of(kMember, d.a, j));
    else
      for (const int p : inst.feeders) values_.erase(key_of(kPartial, d.a, static_cast<std::uint64_t>(p)));
    if (inst.local_feeders == 0) instances_.erase(it);
  }

  void publish(const Publication& p, Ticks clock) {
    if (p.key != kPartial) return send(p.to, key_of(p.key, p.a, p.key == kMember ? p.b : 0), clock);
    const auto it = instances_.find(p.a);
    Instance& inst = it->second;
    inst.partial = std::max(inst.partial, clock);
    if (--inst.local_feeders > 0) return;
    for (const int to : inst.partial_to) send(to, key_of(kPartial, p.a, static_cast<std::uint64_t>(me_)), inst.partial);
    if (inst.consumers == 0) instances_.erase(it);
  }
  void send(int to, std::uint64_t key, Ticks clock) {
    if (to == me_) return deliver(key, clock);
    outbox_[static_cast<std::size_t>(to)].put(key).put(clock);
    outbox_bytes_ += sizeof(key) + sizeof(clock);
    ++sent_;
  }
  void deliver(std::uint64_t key, Ticks clock) {
    values_.emplace(key, clock);
    const auto [first, last] = waiters_.equal_range(key);
    for (auto it = first; it != last; ++it) ready_.push_back(it->second);
    waiters_.erase(first, last);
  }

  // One round's exchange of clocks; every process learns how many were sent and how many ranks
  // are not done.
  RoundState exchange() {
    const RoundState mine{sent_, deferred_.size(), unfinished_};
    std::vector<std::string> packets(outbox_.size());
    for (std::size_t p = 0; p < outbox_.size(); ++p) {
      packets[p] = packed(mine) + outbox_[p].take();
      outbox_[p] = Packer();
    }
    outbox_bytes_ = 0;
    sent_ = 0;
    RoundState all;
    for (const std::string& packet : group_.exchange(std::move(packets))) {
      Unpacker in(packet);
      const auto s = in.get<RoundState>();
      all.sent += s.sent;
      all.deferred += s.deferred;
      all.unfinished += s.unfinished;
      while (!in.done()) {
        const auto key = in.get<std::uint64_t>();
        deliver(key, in.get<Ticks>());
      }
    }
    return all;
  }

  const Trace& trace_;
  std::uint64_t limit_;
  ProcessGroup& group_;
  std::size_t round_bytes_;
  ClockTransport transport_;
  int me_;
  double tps_;
  SampleSink sink_;
  std::vector<std::vector<PagCall>> calls_;  // per rank: outermost calls with their ideal release
  TimerFeed<SampleSink> feed_;
  std::vector<RankShare> shares_;
  // The facts (freed once the dependencies are built).
  std::vector<std::vector<Side>> sides_;      // per local rank, per message side
  std::vector<std::vector<CallSpan>> outer_;  // per local rank: outermost MPI calls
  std::vector<SideFact> remote_;              // the other sides of messages that cross, by message
  std::vector<std::vector<Role>> roles_;      // per local rank, per collective record
  // What the replay reads.
  std::unordered_map<std::uint32_t, Instance> instances_;
  std::vector<std::vector<Dep>> deps_;
  std::vector<std::vector<Publication>> pubs_;
  std::vector<std::vector<std::uint8_t>> replaced_;  // per local rank, per collective record
  std::vector<Cursor> cursor_;
  std::unordered_map<std::uint64_t, Ticks> values_;  // clocks arrived and not taken yet
  std::unordered_multimap<std::uint64_t, Rank> waiters_;
  std::vector<Rank> ready_, deferred_;
  std::vector<Packer> outbox_;
  std::size_t outbox_bytes_ = 0;
  std::uint64_t sent_ = 0;
  std::uint64_t unfinished_ = 0;
  std::uint64_t tight_ = 0;  // dependencies whose start and end have the same time stamp
  Ticks length_ = 0;
};

}  // namespace

std::optional<PopSamples> pop_samples(const Trace& trace, std::uint64_t eager_limit, std::vector<double> times,
                                      ProcessGroup& group, std::size_t round_bytes, ClockTransport transport) {
  if (!trace.share) throw Error("POP over processes: the trace was not read spread over them");
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  PopSamples out;
  out.rank_count = trace.rank_count();
  out.times = std::move(times);
  out.useful.assign(out.rank_count * out.times.size(), 0);
  out.ideal.assign(out.useful.size(), 0);
  const std::optional<Ticks> length = ClockReplay(trace, eager_limit, group, round_bytes, transport, out).run();
  // Every process's rows and largest clock, to every process.
  const RankShare own = *trace.share;
  const std::size_t n = out.times.size();
  Packer mine;
  mine.put<std::uint8_t>(length ? 1 : 0).put<Ticks>(length.value_or(0));
  mine.put_vector(std::vector<double>(out.useful.begin() + own.first * n, out.useful.begin() + own.last * n));
  mine.put_vector(std::vector<double>(out.ideal.begin() + own.first * n, out.ideal.begin() + own.last * n));
  const std::vector<RankShare> shares = gather_shares(group, own);
  Ticks largest = 0;
  bool cycle = false;
  const std::vector<std::string> parts = all_gather(group, mine.take());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    Unpacker in(parts[p]);
    cycle |= in.get<std::uint8_t>() == 0;
    largest = std::max(largest, in.get<Ticks>());
    const std::vector<double> useful = in.get_vector<double>(), ideal = in.get_vector<double>();
    if (useful.size() != shares[p].size() * n || ideal.size() != useful.size())
      throw Error("POP over processes: a process's timers do not cover its ranks");
    std::copy(useful.begin(), useful.end(), out.useful.begin() + shares[p].first * n);
    std::copy(ideal.begin(), ideal.end(), out.ideal.begin() + shares[p].first * n);
  }
  if (cycle) return std::nullopt;
  const TraceSummary whole = summary_over(trace, group);
  out.start = whole.start_time();
  out.end = whole.end_time();
  out.ideal_runtime = static_cast<double>(largest) / static_cast<double>(trace.defs.clock.ticks_per_second);
  return out;
}

}  // namespace wisp
