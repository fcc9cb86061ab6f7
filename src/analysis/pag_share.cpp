// A process's share of the PAG: its two passes and the hubs' facts. See pag_share.hpp.
//
// Backward first (tails, as fill_tails() in cpm.cpp): a rank walks its events from the last; at
// an event it takes the longest of its chain and of its explicit activities out, whose values come
// from their targets' processes (a receive's completion sends its tail plus the message's duration
// to the send's start, a collective end its own to the hub's feeders). Then forward (earliest
// times): the same dependencies the other way, each bringing its source's earliest time and tail,
// so that the target knows whether the dependency lies on a longest path. Values are combined by
// max only: the order they arrive in does not change them.
#include "analysis/pag_share.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <limits>

#include "wisp/error.hpp"
#include "wisp/group/clock_post.hpp"

namespace wisp::clock {

const PagCall* RankDurations::call_at(EventIndex i) const {
  const std::vector<PagCall>& calls = plan_.calls[r_];
  // k: how many calls enter at or before i. The passes ask in event order (forward or backward):
  // a few steps from the last answer, else a binary search.
  std::size_t k = std::min(hint_, calls.size());
  for (int steps = 0; steps < 8 && k < calls.size() && calls[k].enter <= i; ++steps) ++k;
  for (int steps = 0; steps < 8 && k > 0 && calls[k - 1].enter > i; ++steps) --k;
  if ((k < calls.size() && calls[k].enter <= i) || (k > 0 && calls[k - 1].enter > i))
    k = static_cast<std::size_t>(
        std::upper_bound(calls.begin(), calls.end(), i, [](EventIndex e, const PagCall& c) { return e < c.enter; }) -
        calls.begin());
  hint_ = k;
  if (k == 0) return nullptr;
  const PagCall& c = calls[k - 1];
  return i <= c.leave ? &c : nullptr;
}

Ticks RankDurations::dependency(const Dep& d) const {
  const PagCall* c = call_at(d.target);
  return c == nullptr ? 0 : std::max<Ticks>(0, at(d.target) - c->ideal_release);
}

CallpathId RankDurations::dependency_callpath(const Dep& d) const {
  const PagCall* c = call_at(d.target);
  return c == nullptr ? kNone : trace_.ranks[r_].events[c->enter].callpath();
}

namespace {

constexpr Ticks kNoValue = std::numeric_limits<Ticks>::min();
constexpr Value kNothing{kNoValue, kNoValue, kNoValue, kNoValue};
Value larger(const Value& x, const Value& y) {
  return {std::max(x.a, y.a), std::max(x.b, y.b), std::max(x.c, y.c), std::max(x.d, y.d)};
}

// Per instance with members here: how many local members still have to give / take its values.
struct Counts {
  std::uint32_t give = 0, take = 0;
  Value partial = kNothing;
};

class Passes {
 public:
  Passes(const Trace& trace, ProcessGroup& group, PagShare& s, bool point_to_point)
      : trace_(trace), group_(group), s_(s), p2p_(point_to_point), me_(group.process()), durations(trace, s) {}

  // Every tail of the local ranks (kept ones stored), their events 0's, the longest.
  bool backward(std::vector<Ticks>& first_tail, Ticks& longest) {
    first_tail_ = std::vector<Ticks>(trace_.rank_count(), 0);
    longest = 0;
    Post<Value> post(group_, p2p_, kRoundBytes);
    std::vector<Cursor> cursor(trace_.rank_count());
    std::unordered_map<std::uint32_t, Counts> counts;
    for (const auto& [i, inst] : s_.plan.instances)
      counts[i] = Counts{inst.consumers, inst.prefix ? inst.consumers : inst.local_feeders};
    for (Rank r = first(); r < last(); ++r) {
      cursor[r] = Cursor{trace_.ranks[r].events.size(), s_.plan.deps[r].size(), s_.plan.pubs[r].size()};
      s_.outs[r].assign(s_.plan.pubs[r].size(), Out{});
    }
    const bool ok = post.run(first(), last(), [&](Rank r) { return back(r, cursor[r], post, counts, longest); });
    all_gather(group_, std::string());  // every value of the pass received before the next exchange
    first_tail = std::move(first_tail_);
    return ok;
  }

  bool forward() {
    s_.zero.assign(s_.chains.vertex_count, false);
    for (Rank r = first(); r < last(); ++r) s_.tight[r].assign(s_.plan.deps[r].size(), 0);
    return run_forward(
        [&](Rank r, Cursor& c, Post<Value>& post, Counts_& counts) { return forth(r, c, post, counts); });
  }

  // The longest path with the activities of each of four call paths at zero duration (a lane
  // each; kNone: none), as mbm.cpp's passes.
  std::optional<Value> forward_lanes(const std::array<CallpathId, 4>& zeroed) {
    Value longest = kNothing;
    const bool ok = run_forward([&](Rank r, Cursor& c, Post<Value>& post, Counts_& counts) {
      return forth_lanes(r, c, post, counts, zeroed, longest);
    });
    if (!ok) return std::nullopt;
    return longest;
  }

 private:
  static constexpr std::size_t kRoundBytes = std::size_t{8} << 20;
  struct Cursor {
    std::size_t event = 0, dep = 0, pub = 0;  // backward: one past the next
    Value previous = kNothing;                // the value at event - 1 (backward: event + 1)
    std::uint32_t gap = kNone;                // forward(): the first vertex of the chain's inside it is in
  };
  using Counts_ = std::unordered_map<std::uint32_t, Counts>;

  template <typename Forth>
  bool run_forward(Forth&& forth_of) {
    Post<Value> post(group_, p2p_, kRoundBytes);
    std::vector<Cursor> cursor(trace_.rank_count());
    Counts_ counts;
    for (const auto& [i, inst] : s_.plan.instances)
      counts[i] = Counts{inst.prefix ? 0 : inst.local_feeders, inst.consumers};
    const bool ok = post.run(first(), last(), [&](Rank r) { return forth_of(r, cursor[r], post, counts); });
    all_gather(group_, std::string());  // every value of the pass received before the next exchange
    return ok;
  }
  Rank first() const { return trace_.share->first; }
  Rank last() const { return trace_.share->last; }
  std::uint64_t partial_key(std::uint32_t inst, int process) const {
    return key_of(kPartial, inst, static_cast<std::uint64_t>(process));
  }

  // The largest of the values of `keys`, field by field (false and the rank waits if one has not
  // arrived).
  template <typename Keys>
  bool largest(Post<Value>& post, Rank r, const Keys& keys, Value& into) const {
    into = kNothing;
    for (const std::uint64_t key : keys) {
      const Value* v = post.find(key);
      if (v == nullptr) {
        post.wait(key, r);
        return false;
      }
      into = larger(into, *v);
    }
    return true;
  }
  bool one(Post<Value>& post, Rank r, std::uint64_t key, Value& into) const {
    const Value* v = post.find(key);
    if (v == nullptr) {
      post.wait(key, r);
      return false;
    }
    into = *v;
    return true;
  }
  std::vector<std::uint64_t> keys_of_partials(std::uint32_t inst, const std::vector<int>& from) const {
    std::vector<std::uint64_t> keys;
    for (const int p : from) keys.push_back(partial_key(inst, p));
    return keys;
  }
  std::vector<std::uint64_t> keys_of_members(std::uint32_t inst, std::uint32_t first_member,
                                             std::uint32_t end_member) const {
    std::vector<std::uint64_t> keys;
    for (std::uint32_t m = first_member; m < end_member; ++m) keys.push_back(key_of(kMember, inst, m));
    return keys;
  }

  // ---- backward ----

  // The value an explicit activity out of an event brings back (false: not arrived).
  bool out_value(Post<Value>& post, Rank r, const Publication& p, Value& v) const {
    if (p.key == kStart || p.key == kPost) return one(post, r, key_of(p.key, p.a), v);
    const Instance& inst = s_.plan.instances.at(p.a);
    if (p.key == kMember) return largest(post, r, keys_of_members(p.a, p.b, inst.count), v);
    return largest(post, r, keys_of_partials(p.a, inst.partial_to), v);
  }

  bool back(Rank r, Cursor& c, Post<Value>& post, std::unordered_map<std::uint32_t, Counts>& counts, Ticks& longest) {
    const RankDurations& dur = durations(r);
    const std::vector<Dep>& deps = s_.plan.deps[r];
    const std::vector<Publication>& pubs = s_.plan.pubs[r];
    while (c.event > 0) {
      if (post.pause(r)) return false;
      const EventIndex k = static_cast<EventIndex>(c.event - 1);
      Ticks value = dur.has_chain(k) ? c.previous.a + dur.chain(k) : 0;  // previous: the tail of k + 1
      std::size_t p = c.pub;
      for (; p > 0 && pubs[p - 1].event == k; --p) {
        Value v;
        if (!out_value(post, r, pubs[p - 1], v)) return false;
        value = std::max(value, v.a);
        Out& out = s_.outs[r][p - 1];
        out.through = v.a;
        if (pubs[p - 1].key == kStart || pubs[p - 1].key == kPost) {
          out.duration = v.b;
          out.target = static_cast<EventIndex>(v.c & 0xffffffff);
          out.seq = static_cast<std::uint32_t>(v.c >> 32);
          out.callpath = static_cast<CallpathId>(v.d);
        }
      }
      for (; c.pub > p; --c.pub) taken_back(pubs[c.pub - 1], post, counts);
      const std::uint32_t v = s_.vertex(r, k);
      if (s_.tails.kept(v)) s_.tails.tail[s_.tails.slot(v)] = value;
      if (k == 0) first_tail_[r] = value;
      c.previous.a = value;
      longest = std::max(longest, value);
      for (; c.dep > 0 && deps[c.dep - 1].target == k; --c.dep) give_back(deps[c.dep - 1], value, dur, post, counts);
      --c.event;
    }
    return true;
  }

  void taken_back(const Publication& p, Post<Value>& post, std::unordered_map<std::uint32_t, Counts>& counts) const {
    if (p.key == kStart || p.key == kPost) return post.erase(key_of(p.key, p.a));
    Counts& n = counts.at(p.a);
    if (--n.take > 0) return;
    const Instance& inst = s_.plan.instances.at(p.a);
    for (const std::uint64_t key :
         p.key == kMember ? keys_of_members(p.a, 0, inst.count) : keys_of_partials(p.a, inst.partial_to))
      post.erase(key);
  }

  void give_back(const Dep& d, Ticks tail, const RankDurations& dur, Post<Value>& post,
                 std::unordered_map<std::uint32_t, Counts>& counts) const {
    const Ticks duration = dur.dependency(d);
    const Value v{tail + duration, duration, static_cast<Ticks>(std::uint64_t{d.seq} << 32 | d.target),
                  static_cast<Ticks>(dur.dependency_callpath(d))};
    if (d.kind == DepKind::Start) return post.send(s_.owner(trace_.message(d.a).sender), key_of(kStart, d.a), v);
    if (d.kind == DepKind::Post) return post.send(s_.owner(trace_.message(d.a).receiver), key_of(kPost, d.a), v);
    const Instance& inst = s_.plan.instances.at(d.a);
    if (inst.prefix) {
      for (const int o : inst.owners_upto(d.b)) post.send(o, key_of(kMember, d.a, d.b), v);
      return;
    }
    Counts& n = counts.at(d.a);
    n.partial = larger(n.partial, v);
    if (--n.give > 0) return;
    for (const int o : inst.feeders) post.send(o, partial_key(d.a, me_), n.partial);
  }

  // ---- forward ----

  bool forth(Rank r, Cursor& c, Post<Value>& post, std::unordered_map<std::uint32_t, Counts>& counts) {
    const RankDurations& dur = durations(r);
    const std::vector<Dep>& deps = s_.plan.deps[r];
    const std::vector<Publication>& pubs = s_.plan.pubs[r];
    const std::size_t n = trace_.ranks[r].events.size();
    while (c.event < n) {
      if (post.pause(r)) return false;
      const auto k = static_cast<EventIndex>(c.event);
      const std::uint32_t vk = s_.vertex(r, k);
      Ticks value = k == 0 ? s_.launch[r] : dur.has_chain(k - 1) ? c.previous.a + dur.chain(k - 1) : kNoValue;
      if (!s_.tails.kept(vk)) {  // inside a chain: no dependency, no publication; slack decided at its end
        if (c.gap == kNone) c.gap = vk;
        c.previous.a = value;
        ++c.event;
        continue;
      }
      const Ticks tail_k = s_.tails.tail[s_.tails.slot(vk)];
      if (c.gap != kNone) {  // earliest + tail is the same along the chain: the arrival here plus the tail
        const bool zero = s_.zero_slack(value, tail_k);
        for (std::uint32_t x = c.gap; x < vk; ++x) s_.zero[x] = zero;
        c.gap = kNone;
      }
      std::size_t d = c.dep;
      for (; d < deps.size() && deps[d].target == k; ++d) {
        Value v;  // the source's earliest time and tail (a hub's: its earliest time and tail)
        if (!in_value(post, r, deps[d], v)) return false;
        const Ticks duration = dur.dependency(deps[d]);
        value = std::max(value, v.a + duration);
        const Ticks source_tail = deps[d].kind == DepKind::Hub && s_.plan.instances.at(deps[d].a).prefix
                                      ? prefix_hub_tail(r, deps[d], c.pub)
                                      : v.b;
        s_.tight[r][d] = s_.zero_slack(v.a, source_tail) && source_tail == tail_k + duration ? 1 : 0;
      }
      for (; c.dep < d; ++c.dep) taken_forth(deps[c.dep], post, counts);
      c.previous.a = value;
      s_.zero[vk] = s_.zero_slack(value, tail_k);
      for (; c.pub < pubs.size() && pubs[c.pub].event == k; ++c.pub) {
        Out& out = s_.outs[r][c.pub];
        out.earliest = value;
        const bool sync = pubs[c.pub].key == kPartial || pubs[c.pub].key == kMember;
        give_forth(pubs[c.pub], Value{value, sync ? out.through : tail_k, 0, 0}, post, counts);
      }
      ++c.event;
    }
    return true;
  }

  // The tail of the prefix hub of rank r's member whose end dependency is `d`: what its own begin
  // (published before `pub`) found going back.
  Ticks prefix_hub_tail(Rank r, const Dep& d, std::size_t pub) const {
    const std::vector<Publication>& pubs = s_.plan.pubs[r];
    for (std::size_t p = pub; p-- > 0;)
      if (pubs[p].key == kMember && pubs[p].a == d.a && pubs[p].b == d.b) return s_.outs[r][p].through;
    throw Error("PAG over processes: a prefix member's end before its begin");
  }

  bool forth_lanes(Rank r, Cursor& c, Post<Value>& post, Counts_& counts, const std::array<CallpathId, 4>& zeroed,
                   Value& longest) {
    const RankDurations& dur = durations(r);
    const std::vector<Dep>& deps = s_.plan.deps[r];
    const std::vector<Publication>& pubs = s_.plan.pubs[r];
    const std::size_t n = trace_.ranks[r].events.size();
    const auto plus = [&](const Value& v, Ticks d, CallpathId cp) {
      return Value{v.a + (zeroed[0] == cp ? 0 : d), v.b + (zeroed[1] == cp ? 0 : d), v.c + (zeroed[2] == cp ? 0 : d),
                   v.d + (zeroed[3] == cp ? 0 : d)};
    };
    while (c.event < n) {
      if (post.pause(r)) return false;
      const auto k = static_cast<EventIndex>(c.event);
      Value value = k == 0                 ? plus(Value{}, s_.launch[r], kLaunchCallpath)
                    : dur.has_chain(k - 1) ? plus(c.previous, dur.chain(k - 1), dur.chain_callpath(k - 1))
                                           : kNothing;
      std::size_t d = c.dep;
      for (; d < deps.size() && deps[d].target == k; ++d) {
        Value v;
        if (!in_value(post, r, deps[d], v)) return false;
        value = larger(value, plus(v, dur.dependency(deps[d]), dur.dependency_callpath(deps[d])));
      }
      for (; c.dep < d; ++c.dep) taken_forth(deps[c.dep], post, counts);
      longest = larger(longest, value);
      c.previous = value;
      for (; c.pub < pubs.size() && pubs[c.pub].event == k; ++c.pub) give_forth(pubs[c.pub], value, post, counts);
      ++c.event;
    }
    return true;
  }

  bool in_value(Post<Value>& post, Rank r, const Dep& d, Value& v) const {
    if (d.kind == DepKind::Start) return one(post, r, key_of(kStart, d.a), v);
    if (d.kind == DepKind::Post) return one(post, r, key_of(kPost, d.a), v);
    const Instance& inst = s_.plan.instances.at(d.a);
    if (inst.prefix) return largest(post, r, keys_of_members(d.a, 0, d.b + 1), v);
    return largest(post, r, keys_of_partials(d.a, inst.feeders), v);
  }

  void taken_forth(const Dep& d, Post<Value>& post, std::unordered_map<std::uint32_t, Counts>& counts) const {
    if (d.kind == DepKind::Start) return post.erase(key_of(kStart, d.a));
    if (d.kind == DepKind::Post) return post.erase(key_of(kPost, d.a));
    Counts& n = counts.at(d.a);
    if (--n.take > 0) return;
    const Instance& inst = s_.plan.instances.at(d.a);
    for (const std::uint64_t key :
         inst.prefix ? keys_of_members(d.a, 0, inst.count) : keys_of_partials(d.a, inst.feeders))
      post.erase(key);
  }

  void give_forth(const Publication& p, const Value& v, Post<Value>& post,
                  std::unordered_map<std::uint32_t, Counts>& counts) const {
    if (p.key == kStart || p.key == kPost) return post.send(p.to, key_of(p.key, p.a), v);
    const Instance& inst = s_.plan.instances.at(p.a);
    if (p.key == kMember) {
      for (const int o : inst.owners_from(p.b)) post.send(o, key_of(kMember, p.a, p.b), v);
      return;
    }
    Counts& n = counts.at(p.a);
    n.partial = larger(n.partial, v);
    if (--n.give > 0) return;
    for (const int o : inst.partial_to) post.send(o, partial_key(p.a, me_), n.partial);
  }

  const Trace& trace_;
  ProcessGroup& group_;
  PagShare& s_;
  bool p2p_;
  int me_;
  DurationsByRank durations;       // kept from step to step: a rank resumes where it waited
  std::vector<Ticks> first_tail_;  // backward(): per rank
};

void mark_kept(const Trace& trace, PagShare& s);

// The local ranks' chains (pag.cpp: add_rank_activities, add_call): v -> v + 1 inside an outermost
// MPI call is MPI time after the call's release (none where a hub replaces a collective's begin ->
// end), outside one the computation time, labelled with the call path after v.
void build_chains(const Trace& trace, PagShare& s) {
  ActivityGraph& g = s.chains;
  s.first_vertex.assign(trace.rank_count(), 0);
  for (Rank r = trace.share->first; r < trace.share->last; ++r)
    s.first_vertex[r] = g.add_vertices(static_cast<std::uint32_t>(trace.ranks[r].events.size()), r);
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    const std::vector<Event>& ev = trace.ranks[r].events;
    const std::vector<PagCall>& calls = s.plan.calls[r];
    std::size_t c = 0;
    CallpathId cp = kNone;  // after the event
    Ticks next = ev.empty() ? 0 : ticks_at(trace, r, 0);
    for (EventIndex i = 0; i + 1 < ev.size(); ++i) {
      const Ticks here = next;
      next = ticks_at(trace, r, i + 1);
      if (ev[i].kind == EventKind::Enter) cp = ev[i].callpath();
      if (ev[i].kind == EventKind::Leave) cp = trace.defs.callpaths[ev[i].callpath()].parent;
      while (c < calls.size() && calls[c].leave <= i) ++c;
      const std::uint32_t v = s.first_vertex[r] + i;
      if (c < calls.size() && calls[c].enter <= i) {
        const bool replaced = ev[i + 1].kind == EventKind::MpiCollectiveEnd &&
                              ev[i].kind == EventKind::MpiCollectiveBegin &&
                              s.plan.replaced[r][ev[i + 1].collective()] != 0;
        if (!replaced)
          g.add_chain(v, std::max<Ticks>(0, next - std::max(here, calls[c].ideal_release)),
                      ev[calls[c].enter].callpath(), ActivityKind::Mpi);
      } else {
        g.add_chain(v, next - here, cp, ActivityKind::Computation);
      }
    }
  }
  mark_kept(trace, s);
}

// The vertices whose tails are kept: a rank's first and last events, a chain's ends, the events
// with dependencies in or publications out (cpm.hpp, ChainTails::keeps, on the local vertices).
void mark_kept(const Trace& trace, PagShare& s) {
  ChainTails& t = s.tails;
  const ActivityGraph& g = s.chains;
  t.marks.assign((g.vertex_count + 63) / 64, 0);
  const auto keep = [&](std::uint32_t v) { t.marks[v >> 6] |= std::uint64_t{1} << (v & 63); };
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    const std::uint32_t first = s.first_vertex[r];
    const auto n = static_cast<std::uint32_t>(trace.ranks[r].events.size());
    for (std::uint32_t v = first; v < first + n; ++v)
      if (v == first || !g.has_chain(v) || !g.has_chain(v - 1)) keep(v);
    for (const Dep& d : s.plan.deps[r]) keep(first + d.target);
    for (const Publication& p : s.plan.pubs[r]) keep(first + p.event);
  }
  count_before(t.marks, t.before);
  t.tail.assign(t.kept_count(), 0);
}

// ---- facts every process needs of the others ----

// The trace's first time stamp, and every rank's launch.
void gather_launches(const Trace& trace, ProcessGroup& group, PagShare& s) {
  Packer mine;
  for (Rank r = trace.share->first; r < trace.share->last; ++r)
    if (!trace.ranks[r].events.empty()) mine.put(r).put(ticks_at(trace, r, 0));
  std::vector<Ticks> first(trace.rank_count(), kNoValue);
  bool any = false;
  for (const std::string& packet : all_gather(group, mine.take())) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto r = in.get<Rank>();
      first[r] = in.get<Ticks>();
      s.origin = any ? std::min(s.origin, first[r]) : first[r];
      any = true;
    }
  }
  s.launch.assign(trace.rank_count(), 0);
  s.has_events.assign(trace.rank_count(), 0);
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    s.launch[r] = first[r] == kNoValue ? 0 : first[r] - s.origin;
    s.has_events[r] = first[r] == kNoValue ? 0 : 1;
  }
}

// d_cp (the longest tail, as fill_tails() finds it) and every rank's first tail.
void gather_length(const Trace& trace, ProcessGroup& group, PagShare& s, const std::vector<Ticks>& first_tail,
                   Ticks longest) {
  Packer mine;
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    if (!s.has_events[r]) continue;
    mine.put(r).put(first_tail[r]);
    longest = std::max(longest, first_tail[r] + s.launch[r]);
  }
  s.first_tail.assign(trace.rank_count(), 0);
  s.length = 0;
  for (const std::string& packet : all_gather(group, packed(longest) + mine.take())) {
    Unpacker in(packet);
    s.length = std::max(s.length, in.get<Ticks>());
    while (!in.done()) {
      const auto r = in.get<Rank>();
      s.first_tail[r] = in.get<Ticks>();
    }
  }
}

// Every member of the instances this process hosts, from their processes; then the hubs' times.
void gather_hubs(const Trace& trace, ProcessGroup& group, PagShare& s) {
  std::unordered_map<std::uint64_t, MemberFact> local;  // by instance and member
  const auto fact = [&](std::uint32_t inst, std::uint32_t member, Rank r) -> MemberFact& {
    MemberFact& f = local[std::uint64_t{inst} << 32 | member];
    f.instance = inst;
    f.member = member;
    f.rank = r;
    return f;
  };
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    const RankDurations dur(trace, s, r);
    for (const Publication& p : s.plan.pubs[r])
      if (p.key == kPartial || p.key == kMember) {
        MemberFact& f = fact(p.a, p.b, r);
        f.begin = p.event;
        f.begin_earliest = s.outs[r][static_cast<std::size_t>(&p - s.plan.pubs[r].data())].earliest;
        f.begin_tail = s.tail(r, p.event);
        f.feeds = 1;
      }
    for (const Dep& d : s.plan.deps[r])
      if (d.kind == DepKind::Hub) {
        MemberFact& f = fact(d.a, d.b, r);
        f.end = d.target;
        f.end_duration = dur.dependency(d);
        f.end_through = s.tail(r, d.target) + f.end_duration;
        f.end_callpath = dur.dependency_callpath(d);
        f.waits = 1;
      }
  }
  std::vector<Packer> out(static_cast<std::size_t>(group.processes()));
  std::unordered_map<std::uint32_t, int> host;
  for (const auto& [key, f] : local) {
    const auto [it, added] = host.try_emplace(f.instance, 0);
    if (added) it->second = s.hub_host(trace, f.instance);
    out[static_cast<std::size_t>(it->second)].put(f);
  }
  local = {};
  std::vector<std::string> packets;
  for (Packer& p : out) packets.push_back(p.take());
  for (const std::string& packet : group.exchange(std::move(packets))) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto f = in.get<MemberFact>();
      HubFacts& h = s.hubs[f.instance];
      if (h.members.empty()) {
        h.prefix = classify(trace.collectives[f.instance].op) == CollectiveClass::Prefix;
        h.members.assign(trace.collectives[f.instance].count, MemberFact{});
      }
      if (f.member >= h.members.size()) throw Error("PAG over processes: a collective member out of its instance");
      h.members[f.member] = f;
    }
  }
  for (auto& [i, h] : s.hubs) {
    const std::size_t n = h.prefix ? h.members.size() : 1;
    h.earliest.assign(n, kNoValue);
    h.tail.assign(n, kNoValue);
    h.critical_out.assign(n, kNone);
    for (std::size_t j = 0; j < h.members.size(); ++j) {
      const MemberFact& m = h.members[j];
      if (m.feeds) h.earliest[h.prefix ? j : 0] = std::max(h.earliest[h.prefix ? j : 0], m.begin_earliest);
      if (m.waits) h.tail[h.prefix ? j : 0] = std::max(h.tail[h.prefix ? j : 0], m.end_through);
    }
    for (std::size_t j = 1; j < n; ++j) h.earliest[j] = std::max(h.earliest[j], h.earliest[j - 1]);
    for (std::size_t j = n - 1; j-- > 0;) h.tail[j] = std::max(h.tail[j], h.tail[j + 1]);
  }
}

}  // namespace

int PagShare::hub_host(const Trace& trace, std::uint32_t instance) const {
  const CollectiveInstance& inst = trace.collectives[instance];
  std::vector<int> owners;
  for (std::uint32_t j = 0; j < inst.count; ++j) owners.push_back(owner(trace.members(inst)[j].rank));
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners[instance % owners.size()];
}

std::vector<Ticks> share_mbm_all(const Trace& trace, ProcessGroup& group, PagShare& s,
                                 const std::vector<CallpathId>& callpaths) {
  std::vector<Ticks> out;
  Passes passes(trace, group, s, s.point_to_point);
  for (std::size_t i = 0; i < callpaths.size(); i += 4) {
    std::array<CallpathId, 4> zeroed;
    zeroed.fill(kNone - 2);  // no activity's call path (mbm.cpp: kUnusedLane)
    for (std::size_t j = 0; j < 4 && i + j < callpaths.size(); ++j) zeroed[j] = callpaths[i + j];
    const std::optional<Value> mine = passes.forward_lanes(zeroed);
    if (!mine) throw Error("PAG over processes: an MBM pass met a cycle the backward pass did not");
    Value longest = Value{};
    for (const std::string& part : all_gather(group, packed(*mine)))
      longest = larger(longest, Unpacker(part).get<Value>());
    const Ticks lanes[4] = {longest.a, longest.b, longest.c, longest.d};
    for (std::size_t j = 0; j < 4 && i + j < callpaths.size(); ++j) out.push_back(s.length - lanes[j]);
  }
  return out;
}

std::optional<PagShare> share_pag(const Trace& trace, ProcessGroup& group, RendezvousRule rule,
                                  std::uint64_t eager_limit, StepRunner& run) {
  if (!trace.share) throw Error("PAG over processes: the trace was not read spread over them");
  PagShare s;
  std::uint64_t tight = 0;
  run.step("activity graph over processes: the plan", [&] {
    s.shares = gather_shares(group, *trace.share);
    s.ticks_per_second = static_cast<double>(trace.defs.clock.ticks_per_second);
    s.plan = plan_clocks(trace, rule, eager_limit, group, s.shares);
    for (const std::string& part : all_gather(group, packed(s.plan.tight)))
      tight += Unpacker(part).get<std::uint64_t>();
  });
  run.step("activity graph over processes: the chains", [&] {
    build_chains(trace, s);
    gather_launches(trace, group, s);
  });
  s.outs.resize(trace.rank_count());
  s.tight.resize(trace.rank_count());
  s.critical.resize(trace.rank_count());
  s.point_to_point = tight == 0;
  Passes passes(trace, group, s, s.point_to_point);
  bool acyclic = true;
  run.step("activity graph over processes: the backward pass", [&] {
    std::vector<Ticks> first_tail;
    Ticks longest = 0;
    acyclic = passes.backward(first_tail, longest);  // rounds: every process finds the cycle
    if (acyclic) gather_length(trace, group, s, first_tail, longest);
  });
  if (!acyclic) return std::nullopt;
  run.step("activity graph over processes: the forward pass", [&] {
    if (!passes.forward()) throw Error("PAG over processes: the forward pass met a cycle the backward pass did not");
  });
  run.step("activity graph over processes: the hubs' facts", [&] { gather_hubs(trace, group, s); });
  return s;
}

}  // namespace wisp::clock
