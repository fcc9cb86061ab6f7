// The clock replay's plan. See clock_plan.hpp.
#include "analysis/clock_plan.hpp"

#include <algorithm>
#include <cmath>

#include "wisp/error.hpp"

namespace wisp::clock {

namespace {

// A message side's times: where a dependency leaves it (a send's start, a receive's posting) and
// where one arrives (a receive's completion; a send's completion above the eager limit).
struct Side {
  Ticks at = kMissing;
  Ticks target = kMissing;
  EventIndex at_event = kNone;
};
struct SideFact {
  std::uint32_t message = 0;
  EventIndex at_event = kNone;
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

class Planner {
 public:
  Planner(const Trace& trace, RendezvousRule rule, std::uint64_t eager_limit, ProcessGroup& group,
          const std::vector<RankShare>& shares)
      : trace_(trace), rule_(rule), limit_(eager_limit), group_(group), me_(group.process()), shares_(shares) {}

  ClockPlan run() {
    const RankShare own = *trace_.share;
    const Rank P = trace_.rank_count();
    for (const Callpath& cp : trace_.defs.callpaths)
      mpi_callpath_.push_back(is_mpi(trace_.defs.regions[cp.region].kind) ? 1 : 0);
    sides_.resize(P);
    outer_.resize(P);
    for (Rank r = own.first; r < own.last; ++r) index_sides(r);
    exchange_sides();
    decide_collectives();
    plan_.deps.resize(P);
    plan_.pubs.resize(P);
    from_.resize(P);
    from_event_.resize(P);
    connect_sides();
    plan_.replaced.resize(P);
    plan_.calls.resize(P);
    for (Rank r = own.first; r < own.last; ++r) build_rank(r);
    return std::move(plan_);
  }

 private:
  Ticks at(Rank r, EventIndex i) const { return ticks_at(trace_, r, i); }
  int owner(Rank r) const { return owner_of(shares_, r); }
  // A send that may wait for its receive to be posted: every one as observed, only those above
  // the limit on the ideal network.
  bool may_rendezvous(const P2P& send) const { return rule_ == RendezvousRule::Observed || send.bytes > limit_; }

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
        if (mpi_callpath_[e.callpath()]) call = e.kind == EventKind::Enter ? i : kNone;
        continue;
      }
      if (e.kind != EventKind::MpiSend && e.kind != EventKind::MpiIsend && e.kind != EventKind::MpiRecv &&
          e.kind != EventKind::MpiIrecv)
        continue;
      const P2P& p = rt.p2p[e.p2p()];
      if (p.event != i) continue;
      const EventIndex from =
          p.is_send() ? (call != kNone ? call : i) : (p.request_event != kNone ? p.request_event : call);
      if (from == kNone) continue;
      sides[e.p2p()].at = at(r, from);
      sides[e.p2p()].at_event = from;
    }
    outer_[r] = outermost_calls(rt);
    for (const CallSpan& c : outer_[r])
      for (EventIndex i = c.enter + 1; i <= c.leave; ++i) {
        const Event& e = rt.events[i];
        if (e.kind == EventKind::MpiRecv || e.kind == EventKind::MpiIrecv)
          sides[e.p2p()].target = at(r, i);
        else if ((e.kind == EventKind::MpiIsendComplete || e.kind == EventKind::MpiSend) &&
                 may_rendezvous(rt.p2p[e.p2p()]))
          sides[e.p2p()].target = at(r, e.kind == EventKind::MpiSend ? c.leave : i);
      }
  }

  // Each side of a message whose other side is on another process goes there.
  void exchange_sides() {
    std::vector<Packer> out(static_cast<std::size_t>(group_.processes()));
    for (std::size_t k = 0; k < trace_.messages.size(); ++k) {  // those with a side here, by number
      const Message& m = trace_.messages[k];
      const bool send_here = trace_.holds(m.sender), recv_here = trace_.holds(m.receiver);
      if (send_here == recv_here) continue;
      const Side& s = send_here ? sides_[m.sender][m.send] : sides_[m.receiver][m.recv];
      out[static_cast<std::size_t>(owner(send_here ? m.receiver : m.sender))].put(
          SideFact{trace_.message_id(k), s.at_event, s.at, s.target});
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

  // Every message with a side here, walked by number beside the sides that arrived (no search
  // per side): which of its two dependencies exist — a send's start to its receive's completion
  // unless the receive ended first (an anomaly), a receive's posting to the completion of a send
  // that completed after it (as observed: posted after the send started; ideal network: above the
  // eager limit) —, kept as the start time and event each completion waits for (`from_`,
  // `from_event_`) and as a publication at the side it leaves.
  void connect_sides() {
    for (Rank r = trace_.share->first; r < trace_.share->last; ++r) {
      from_[r].assign(trace_.ranks[r].p2p.size(), kMissing);
      from_event_[r].assign(trace_.ranks[r].p2p.size(), kNone);
      plan_.pubs[r].reserve(trace_.ranks[r].p2p.size() + trace_.ranks[r].collectives.size());
    }
    auto remote = remote_.begin();
    for (std::size_t k = 0; k < trace_.messages.size(); ++k) {
      const Message& m = trace_.messages[k];
      const std::uint32_t id = trace_.message_id(k);
      const bool send_here = trace_.holds(m.sender), recv_here = trace_.holds(m.receiver);
      Side send = send_here ? sides_[m.sender][m.send] : Side{};
      Side recv = recv_here ? sides_[m.receiver][m.recv] : Side{};
      if (!send_here || !recv_here) {
        while (remote != remote_.end() && remote->message < id) ++remote;
        if (remote == remote_.end() || remote->message != id)
          throw Error("POP over processes: a message side did not arrive from its process");
        Side& other = send_here ? recv : send;
        other.at = remote->at;
        other.target = remote->target;
        other.at_event = remote->at_event;
      }
      if (send.at != kMissing && recv.target != kMissing && send.at <= recv.target) {  // the message
        if (send_here) plan_.pubs[m.sender].push_back({send.at_event, kStart, owner(m.receiver), id, 0});
        if (recv_here) {
          from_[m.receiver][m.recv] = send.at;
          from_event_[m.receiver][m.recv] = send.at_event;
        }
      } else if (recv_here && send.at != kMissing && recv.target != kMissing) {
        ++plan_.receive_before_send;
      }
      const bool observed = rule_ != RendezvousRule::Observed || send.at < recv.at;
      if (recv.at != kMissing && send.target != kMissing && recv.at <= send.target && observed) {  // the rendezvous
        if (recv_here) plan_.pubs[m.receiver].push_back({recv.at_event, kPost, owner(m.sender), id, 0});
        if (send_here) {
          from_[m.sender][m.send] = recv.at;
          from_event_[m.sender][m.send] = recv.at_event;
        }
      }
    }
    sides_ = {};
    remote_ = {};
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
    if (inconsistent) {
      plan_.inconsistent_collectives += p.owners.front() == me_ ? 1 : 0;
      return;
    }
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
    plan_.instances.emplace(p.instance, std::move(state));
  }

  // Scan, Exscan: member j waits for members 0 .. j (a hub per member at their latest begin).
  void decide_prefix(const Pending& p, const std::vector<MemberFact>& facts) {
    const CollectiveInstance& inst = trace_.collectives[p.instance];
    const auto first = std::lower_bound(facts.begin(), facts.end(), p.instance,
                                        [](const MemberFact& f, std::uint32_t i) { return f.instance < i; });
    if (static_cast<std::size_t>(facts.end() - first) < inst.count) return;
    for (std::uint32_t j = 0; j < inst.count; ++j) {
      const MemberFact& f = first[j];
      if (f.instance != p.instance || f.member != j || f.begin == kMissing || f.end == kMissing) return;
    }
    std::vector<Ticks> release(inst.count);
    Ticks prefix = kMissing;
    for (std::uint32_t j = 0; j < inst.count; ++j) {
      prefix = std::max(prefix, first[j].begin);
      if (first[j].end < prefix) {
        plan_.inconsistent_collectives += p.owners.front() == me_ ? 1 : 0;
        return;
      }
      release[j] = prefix;
    }
    Instance state;
    state.prefix = true;
    state.count = inst.count;
    for (std::uint32_t j = 0; j < inst.count; ++j) {
      const CollectiveMember& m = trace_.members(inst)[j];
      state.member_owner.push_back(owner(m.rank));
      if (!trace_.holds(m.rank)) continue;
      roles_[m.rank][m.record] = Role{p.instance, j, release[j], true, true, true};
      ++state.consumers;
    }
    plan_.instances.emplace(p.instance, std::move(state));
  }

  // ---- a rank's dependencies, publications and calls ----

  void build_rank(Rank r) {
    const RankTrace& rt = trace_.ranks[r];
    std::vector<Publication>& pubs = plan_.pubs[r];
    plan_.replaced[r].assign(rt.collectives.size(), 0);
    for (std::uint32_t k = 0; k < rt.collectives.size(); ++k) {
      const Role& role = roles_[r][k];
      if (role.instance == kNone) continue;
      plan_.replaced[r][k] = role.replaced ? 1 : 0;
      if (!role.feeds) continue;
      const EventIndex begin = rt.collectives[k].begin;
      if (!plan_.instances.at(role.instance).prefix) {
        pubs.push_back({begin, kPartial, me_, role.instance, role.member});
        continue;
      }
      pubs.push_back({begin, kMember, me_, role.instance, role.member});
    }
    std::stable_sort(pubs.begin(), pubs.end(),
                     [](const Publication& a, const Publication& b) { return a.event < b.event; });
    next_seq_ = 1;  // the rank's launch is 0
    for (const CallSpan& c : outer_[r]) add_call(r, c);
  }

  // The call's dependencies (ideal network) and its release: the latest start of them, or its enter.
  void add_call(Rank r, const CallSpan& call) {
    const RankTrace& rt = trace_.ranks[r];
    std::vector<Dep>& deps = plan_.deps[r];
    const std::size_t first = deps.size();
    Ticks release = at(r, call.enter);
    const auto rendezvous = [&](std::uint32_t record, EventIndex target) {
      const P2P& send = rt.p2p[record];
      if (send.message == kNone || !may_rendezvous(send)) return;
      const Ticks post = from_[r][record];
      if (post == kMissing || post > at(r, target)) return;
      plan_.tight += post == at(r, target) ? 1 : 0;
      deps.push_back({target, DepKind::Post, send.message, from_event_[r][record], next_seq_++});
      release = std::max(release, post);
    };
    for (EventIndex i = call.enter + 1; i <= call.leave; ++i) {
      const Event& e = rt.events[i];
      switch (e.kind) {
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv: {
          const P2P& recv = rt.p2p[e.p2p()];
          if (recv.message == kNone) break;
          const Ticks sent = from_[r][e.p2p()];
          if (sent == kMissing || sent > at(r, i)) break;
          plan_.tight += sent == at(r, i) ? 1 : 0;
          deps.push_back({i, DepKind::Start, recv.message, from_event_[r][e.p2p()], next_seq_++});
          release = std::max(release, sent);
          break;
        }
        case EventKind::MpiIsendComplete:
          rendezvous(e.p2p(), i);
          break;
        case EventKind::MpiSend:
          rendezvous(e.p2p(), call.leave);
          break;
        case EventKind::MpiCollectiveEnd: {
          const Role& role = roles_[r][e.collective()];
          if (role.instance == kNone || !role.waits) break;
          plan_.tight += role.hub_time == at(r, i) ? 1 : 0;
          deps.push_back({i, DepKind::Hub, role.instance, role.member, next_seq_++});
          release = std::max(release, role.hub_time);
          break;
        }
        default:
          break;
      }
    }
    std::stable_sort(deps.begin() + static_cast<std::ptrdiff_t>(first), deps.end(),
                     [](const Dep& a, const Dep& b) { return a.target < b.target; });
    plan_.calls[r].push_back(PagCall{call.enter, call.leave, release});
  }

  const Trace& trace_;
  RendezvousRule rule_;
  std::uint64_t limit_;
  ProcessGroup& group_;
  int me_;
  const std::vector<RankShare>& shares_;
  std::vector<std::uint8_t> mpi_callpath_;           // per call path: its region is an MPI function
  std::vector<std::vector<Side>> sides_;             // per local rank, per message side
  std::vector<std::vector<CallSpan>> outer_;         // per local rank: outermost MPI calls
  std::vector<SideFact> remote_;                     // the other sides of messages that cross, by message
  std::vector<std::vector<Ticks>> from_;             // per local rank, per message side: when the dependency into
                                                     // its completion starts (kMissing: none)
  std::vector<std::vector<EventIndex>> from_event_;  // and at which event of the other rank
  std::vector<std::vector<Role>> roles_;             // per local rank, per collective record
  std::uint32_t next_seq_ = 1;                       // build_rank(): the next dependency's Dep::seq
  ClockPlan plan_;
};

}  // namespace

std::vector<int> Instance::unique_owners(std::uint32_t first, std::uint32_t end) const {
  std::vector<int> owners(member_owner.begin() + first, member_owner.begin() + end);
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

ClockPlan plan_clocks(const Trace& trace, RendezvousRule rule, std::uint64_t eager_limit, ProcessGroup& group,
                      const std::vector<RankShare>& shares) {
  return Planner(trace, rule, eager_limit, group, shares).run();
}

}  // namespace wisp::clock
