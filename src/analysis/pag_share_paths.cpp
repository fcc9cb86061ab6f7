// The critical and near-critical paths of a PAG spread over processes. See pag_share.hpp.
//
// Both walk the graph vertex by vertex as critical_path() and near_critical_paths() do in one
// process, on the process that holds the vertex: a token with the walk's state crosses to the
// next process when the path does (ProcessGroup::send), and the one that ends the walk tells the
// others. A hub (a collective's synchronisation vertex) is walked by any process with a member of
// its instance: each has every member's facts (gather_hubs()). The near-critical search itself is
// the same on every process: after each path's walk the candidates it offered, its time per call
// path and its variants are gathered, and every process merges them in the order the walk met them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "analysis/bounded_candidates.hpp"
#include "analysis/pag_share.hpp"
#include "wisp/error.hpp"

namespace wisp::clock {

namespace {

enum class At : std::uint8_t { Start, Event, Hub };
struct Vertex {
  At at = At::Start;
  std::uint32_t x = 0, y = 0;  // Event: rank, event; Hub: instance, hub
  bool operator==(const Vertex&) const = default;
};
struct Step {  // an activity, by the vertex it leaves
  Vertex from;
  std::uint32_t out = kNone;  // Event: kChainOut or a publication; Start: the rank; Hub: a member or kHubChainOut
};

// The vertices as the walks read them.
class View {
 public:
  View(const Trace& trace, const PagShare& s) : trace_(trace), s_(s), durations_(trace, s) {}

  bool here(const Vertex& v) const {
    return v.at == At::Start || (v.at == At::Event ? trace_.holds(v.x) : s_.hubs.count(v.x) != 0);
  }
  int owner(const Vertex& v) const { return v.at == At::Event ? s_.owner(v.x) : s_.hub_host(trace_, v.x); }

  Ticks tail(const Vertex& v) const {
    if (v.at == At::Start) return s_.length;
    if (v.at == At::Hub) return hub(v).tail[v.y];
    return s_.tail(v.x, v.y);
  }
  // An event inside a chain: its chain is its one activity out.
  bool inside_chain(const Vertex& v) const { return v.at == At::Event && !s_.kept(v.x, v.y); }
  // Its activities out, in the order the PAG lists them (ActivityGraph::for_each_outgoing).
  void outs(const Vertex& v, std::vector<Step>& into) const {
    into.clear();
    if (v.at == At::Start) {
      for (Rank r = 0; r < trace_.rank_count(); ++r)
        if (s_.has_events[r]) into.push_back({v, r});
    } else if (v.at == At::Hub) {
      const HubFacts& h = hub(v);
      if (h.prefix) {
        if (v.y + 1 < h.members.size()) into.push_back({v, kHubChainOut});
        into.push_back({v, v.y});
      } else {
        for (const std::uint32_t m : waiting_by_rank(h)) into.push_back({v, m});
      }
    } else {
      event_outs(v, into);
    }
  }
  Vertex target(const Step& a) const {
    const Vertex& v = a.from;
    if (v.at == At::Start) return {At::Event, a.out, 0};
    if (v.at == At::Hub) {
      if (a.out == kHubChainOut) return {At::Hub, v.x, v.y + 1};
      const MemberFact& m = hub(v).members[a.out];
      return {At::Event, m.rank, m.end};
    }
    if (a.out == kChainOut) return {At::Event, v.x, v.y + 1};
    const Publication& p = s_.plan.pubs[v.x][a.out];
    if (p.key == kStart) return {At::Event, trace_.message(p.a).receiver, s_.outs[v.x][a.out].target};
    if (p.key == kPost) return {At::Event, trace_.message(p.a).sender, s_.outs[v.x][a.out].target};
    return {At::Hub, p.a, s_.plan.instances.at(p.a).prefix ? p.b : 0};
  }
  // Its target's tail plus its duration.
  Ticks through(const Step& a) const {
    const Vertex& v = a.from;
    if (v.at == At::Start) return s_.first_tail[a.out] + s_.launch[a.out];
    if (v.at == At::Hub) return a.out == kHubChainOut ? hub(v).tail[v.y + 1] : hub(v).members[a.out].end_through;
    if (a.out == kChainOut) return s_.tail(v.x, v.y + 1) + durations(v.x).chain(v.y);
    return s_.outs[v.x][a.out].through;
  }
  Ticks duration(const Step& a) const {
    const Vertex& v = a.from;
    if (v.at == At::Start) return s_.launch[a.out];
    if (v.at == At::Hub) return a.out == kHubChainOut ? 0 : hub(v).members[a.out].end_duration;
    if (a.out == kChainOut) return durations(v.x).chain(v.y);
    return s_.outs[v.x][a.out].duration;
  }
  CallpathId callpath(const Step& a) const {
    const Vertex& v = a.from;
    if (v.at == At::Start) return kLaunchCallpath;
    if (v.at == At::Hub) return a.out == kHubChainOut ? kNone : hub(v).members[a.out].end_callpath;
    if (a.out == kChainOut) return durations(v.x).chain_callpath(v.y);
    return s_.outs[v.x][a.out].callpath;
  }
  // Its zero-slack activity out (near_critical.cpp, successors_of()): the critical path's own, else
  // the first of zero cost, its chain first. out = kNone: a leaf.
  Step successor(const Vertex& v) const {
    if (v.at == At::Start) return {v, s_.critical_launch};
    if (v.at == At::Hub) {
      const HubFacts& h = hub(v);
      if (h.critical_out[v.y] != kNone) return {v, h.critical_out[v.y]};
    } else {
      const auto& marks = s_.critical[v.x];
      const auto it = std::lower_bound(marks.begin(), marks.end(), std::pair{v.y, std::uint32_t{0}});
      if (it != marks.end() && it->first == v.y) return {v, it->second};
    }
    outs(v, scratch_);
    const Ticks t = tail(v);
    Step best{v, kNone};
    for (const Step& a : scratch_) {
      if (through(a) != t) continue;
      if (v.at == At::Event && a.out == kChainOut) return a;
      if (best.out == kNone) best = a;
    }
    return best;
  }
  const HubFacts& hub(const Vertex& v) const {
    const auto it = s_.hubs.find(v.x);
    if (it == s_.hubs.end()) throw Error("PAG over processes: a walk reached a hub on a process that does not host it");
    return it->second;
  }
  const RankDurations& durations(Rank r) const { return durations_(r); }
  // The range of rank r's publications at event k.
  std::pair<std::size_t, std::size_t> pubs_at(Rank r, EventIndex k) const {
    const std::vector<Publication>& pubs = s_.plan.pubs[r];
    const auto first =
        std::lower_bound(pubs.begin(), pubs.end(), k, [](const Publication& p, EventIndex e) { return p.event < e; });
    auto last = first;
    while (last != pubs.end() && last->event == k) ++last;
    return {static_cast<std::size_t>(first - pubs.begin()), static_cast<std::size_t>(last - pubs.begin())};
  }

 private:
  static std::vector<std::uint32_t> waiting_by_rank(const HubFacts& h) {
    std::vector<std::uint32_t> members;
    for (std::uint32_t m = 0; m < h.members.size(); ++m)
      if (h.members[m].waits) members.push_back(m);
    std::sort(members.begin(), members.end(),
              [&](std::uint32_t a, std::uint32_t b) { return h.members[a].rank < h.members[b].rank; });
    return members;
  }
  // An event's activities out by the order they were added to the PAG: the synchronisation with
  // its hub first (added before every rank's), then by target rank and order there; its chain
  // among them as the first of its own rank's.
  void event_outs(const Vertex& v, std::vector<Step>& into) const {
    struct Keyed {
      std::uint32_t phase, rank, seq;
      Step step;
    };
    std::vector<Keyed> keyed;
    const auto [first, last] = pubs_at(v.x, v.y);
    for (std::size_t p = first; p < last; ++p) {
      const Publication& pub = s_.plan.pubs[v.x][p];
      const auto out = static_cast<std::uint32_t>(p);
      if (pub.key == kPartial || pub.key == kMember) {
        keyed.push_back({0, 0, 0, {v, out}});
        continue;
      }
      const Message& m = trace_.message(pub.a);
      keyed.push_back({1, pub.key == kStart ? m.receiver : m.sender, s_.outs[v.x][p].seq, {v, out}});
    }
    if (durations(v.x).has_chain(v.y)) keyed.push_back({1, v.x, 0, {v, kChainOut}});
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
      return std::tie(a.phase, a.rank, a.seq) < std::tie(b.phase, b.rank, b.seq);
    });
    for (const Keyed& k : keyed) into.push_back(k.step);
  }

  const Trace& trace_;
  const PagShare& s_;
  mutable std::vector<Step> scratch_;
  DurationsByRank durations_;
};

// ---- the token ----

enum class Signal : std::uint8_t { Token, Done };

// Runs the walk where the token is until one process says it is done.
// `walk(token)` goes on from the token, leaves the next one in it and returns the process it goes
// to, or -1 when it ended the walk here.
template <typename Walk>
void pass_token(ProcessGroup& group, bool start_here, std::string token, Walk&& walk) {
  bool holding = start_here;
  while (true) {
    if (!holding) {
      const std::string message = group.receive();
      if (message.empty() || static_cast<Signal>(message[0]) == Signal::Done) return;
      token = message.substr(1);
    }
    const int next = walk(token);
    holding = false;
    if (next < 0) {
      for (int p = 0; p < group.processes(); ++p)
        if (p != group.process()) group.send(p, std::string(1, static_cast<char>(Signal::Done)));
      return;
    }
    group.send(next, static_cast<char>(Signal::Token) + token);
  }
}

// ---- the critical path: critical_path()'s backward walk ----

struct CriticalToken {
  Vertex at;
  Key key = kStart;  // an event: the publication the path leaves it by (a = kNone: none, its end)
  std::uint32_t a = 0;
  std::uint32_t member = 0;  // a hub: the member whose end the path came back from, on rank `lane`
  Rank lane = kNone;
};

class CriticalWalk {
 public:
  CriticalWalk(const Trace& trace, PagShare& s, int process)
      : trace_(trace), s_(s), view_(trace, s), group_process_(process) {}

  // From `t` as far as this process goes: the next process, or -1 at the start vertex.
  int walk(CriticalToken t) {
    if (t.at.at == At::Hub && !through_hub(t)) return -1;
    if (!trace_.holds(t.at.x)) {
      token_ = t;
      return s_.owner(t.at.x);
    }
    Vertex v = t.at;
    if (t.a != kNone) mark(v, publication(v, t.key, t.a));  // else the path's end: nothing leaves it
    while (true) {
      const Rank r = v.x;
      const EventIndex k = v.y;
      const RankDurations& dur = view_.durations(r);
      if (k > 0 && dur.has_chain(k - 1) &&
          (!s_.kept(r, k) || (s_.zero[s_.vertex(r, k - 1)] && s_.tail(r, k - 1) == s_.tail(r, k) + dur.chain(k - 1)))) {
        v.y = k - 1;
        mark(v, kChainOut);
        continue;
      }
      const std::optional<Incoming> in = best_incoming(r, k);
      if (!in) return -1;  // no tight activity in: the path ends (cannot happen in a consistent graph)
      if (in->launch) {
        s_.critical_launch = r;
        return -1;
      }
      const Dep& d = s_.plan.deps[r][in->dep];
      CriticalToken next;
      if (d.kind == DepKind::Hub) {
        const bool prefix = s_.plan.instances.at(d.a).prefix;
        next = {{At::Hub, d.a, prefix ? d.b : 0}, kStart, 0, d.b, r};
        const int host = s_.hub_host(trace_, d.a);
        if (host != group_process_) {
          token_ = next;
          return host;
        }
        if (!through_hub(next)) return -1;
      } else {
        const Message& m = trace_.message(d.a);
        next = {{At::Event, d.kind == DepKind::Start ? m.sender : m.receiver, d.b},
                d.kind == DepKind::Start ? kStart : kPost,
                d.a};
      }
      if (!trace_.holds(next.at.x)) {
        token_ = next;
        return s_.owner(next.at.x);
      }
      v = next.at;
      mark(v, publication(v, next.key, next.a));
    }
  }
  CriticalToken token() const { return token_; }

 private:
  struct Incoming {
    bool launch = false;
    std::size_t dep = 0;
  };
  // The tight explicit activity into event k of rank r that critical_path() prefers: from the same
  // rank, then the lowest lane (hubs and the start have none: last), then the first added.
  std::optional<Incoming> best_incoming(Rank r, EventIndex k) const {
    std::optional<Incoming> best;
    std::tuple<int, Rank, std::uint32_t> best_pref{};
    std::uint32_t position = 0;
    const auto consider = [&](Incoming in, Rank lane) {
      ++position;
      const std::tuple<int, Rank, std::uint32_t> pref{lane == r ? 0 : 1, lane, position};
      if (!best || pref < best_pref) {
        best = in;
        best_pref = pref;
      }
    };
    if (k == 0 && s_.launch[r] + s_.tail(r, 0) == s_.length)
      consider({true, 0}, kNone);
    else if (k == 0)
      ++position;
    const std::vector<Dep>& deps = s_.plan.deps[r];
    const auto first =
        std::lower_bound(deps.begin(), deps.end(), k, [](const Dep& d, EventIndex e) { return d.target < e; });
    for (auto it = first; it != deps.end() && it->target == k; ++it) {
      const auto index = static_cast<std::size_t>(it - deps.begin());
      if (!s_.tight[r][index]) {
        ++position;
        continue;
      }
      const Rank lane = it->kind == DepKind::Hub     ? kNone
                        : it->kind == DepKind::Start ? trace_.message(it->a).sender
                                                     : trace_.message(it->a).receiver;
      consider({false, index}, lane);
    }
    return best;
  }

  // Back through a hub (on its host), arrived at from member t.member's end on rank t.lane: the
  // hub's incoming activity critical_path() takes — a member's begin on the path's rank, else the
  // lowest rank's; at a prefix hub the member's own begin, else the previous hub. `t` becomes the
  // begin the path goes on at.
  bool through_hub(CriticalToken& t) {
    const std::uint32_t instance = t.at.x;
    HubFacts& h = s_.hubs.at(instance);
    std::uint32_t j = t.at.y;
    h.critical_out[j] = t.member;
    if (h.prefix) {
      while (true) {
        const MemberFact& m = h.members[j];
        if (s_.zero_slack(m.begin_earliest, m.begin_tail) && m.begin_tail == h.tail[j]) {
          t = {{At::Event, m.rank, m.begin}, kMember, instance};
          return true;
        }
        if (j == 0 || !(s_.zero_slack(h.earliest[j - 1], h.tail[j - 1]) && h.tail[j - 1] == h.tail[j])) return false;
        --j;
        h.critical_out[j] = kHubChainOut;
      }
    }
    const MemberFact* best = nullptr;
    for (const MemberFact& m : h.members) {
      if (!m.feeds || !s_.zero_slack(m.begin_earliest, m.begin_tail) || m.begin_tail != h.tail[0]) continue;
      if (m.rank == t.lane) {
        best = &m;
        break;
      }
      if (best == nullptr || m.rank < best->rank) best = &m;
    }
    if (best == nullptr) return false;
    t = {{At::Event, best->rank, best->begin}, kPartial, instance};
    return true;
  }

  // The index of event v's publication (key, a).
  std::uint32_t publication(const Vertex& v, Key key, std::uint32_t a) const {
    const auto [first, last] = view_.pubs_at(v.x, v.y);
    for (std::size_t p = first; p < last; ++p) {
      const Publication& pub = s_.plan.pubs[v.x][p];
      if (pub.a == a && (pub.key == key || (key == kPartial && pub.key == kMember)))
        return static_cast<std::uint32_t>(p);
    }
    throw Error("PAG over processes: the critical path arrived at an event by an activity it does not have");
  }
  void mark(const Vertex& v, std::uint32_t out) { s_.critical[v.x].emplace_back(v.y, out); }

  const Trace& trace_;
  PagShare& s_;
  View view_;
  int group_process_;
  CriticalToken token_;
};

// The lowest rank's first leaf that ends at the critical path's length (critical_path()'s start).
std::optional<std::pair<Rank, EventIndex>> path_end(const Trace& trace, ProcessGroup& group, const PagShare& s) {
  Packer mine;
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    const RankDurations dur(trace, s, r);
    const std::vector<Publication>& pubs = s.plan.pubs[r];
    std::size_t p = 0;
    for (EventIndex k = 0; k < trace.ranks[r].events.size(); ++k) {
      while (p < pubs.size() && pubs[p].event < k) ++p;
      const bool leaf = !dur.has_chain(k) && (p == pubs.size() || pubs[p].event != k);
      if (leaf && s.tail(r, k) == 0 && s.zero[s.vertex(r, k)]) {
        mine.put(r).put(k);
        break;
      }
    }
    if (mine.size() > 0) break;
  }
  std::optional<std::pair<Rank, EventIndex>> end;
  for (const std::string& packet : all_gather(group, mine.take())) {
    if (packet.empty()) continue;
    Unpacker in(packet);
    const auto r = in.get<Rank>();
    const auto k = in.get<EventIndex>();
    if (!end || r < end->first) end = std::pair{r, k};
  }
  return end;
}

// ---- the near-critical paths: near_critical_paths()'s search, its walks spread ----

// A candidate one walk offered: its cost, where the walk met it (step, then the order of the
// vertex's activities out) and the activity.
struct Offer {
  Ticks cost = 0;
  std::uint64_t step = 0;
  std::uint32_t order = 0;
  Step act;
  auto key() const { return std::tie(cost, step, order); }
};

struct Sum {
  CallpathId callpath;
  Ticks ticks;
};

struct PathToken {
  Vertex at;
  std::uint64_t step = 0;
  std::uint32_t next_deviation = 0;  // the deviations before it are taken
  std::uint8_t own = 0;              // in the path's own part: offering candidates
};

// One path's walk from the start vertex: its deviations in order, then zero-slack successors to a
// leaf; what this process met of it.
class PathWalk {
 public:
  PathWalk(const Trace& trace, const PagShare& s, const NearCriticalQuery& q, Ticks base, Ticks nc_bound,
           std::size_t capacity, std::vector<Step> deviations)
      : view_(trace, s),
        q_(q),
        base_(base),
        nc_bound_(nc_bound),
        capacity_(capacity),
        deviations_(std::move(deviations)) {}

  int walk(PathToken t) {
    std::vector<Step> outs;
    while (true) {
      if (!view_.here(t.at)) {
        token_ = t;
        return view_.owner(t.at);
      }
      if (view_.inside_chain(t.at)) {  // its chain is its one way on: no deviation, no candidate
        const Step chain{t.at, kChainOut};
        const Ticks d = view_.duration(chain);
        if (d != 0) sums_[view_.callpath(chain)] += d;
        ++t.at.y;
        continue;
      }
      const bool deviates = t.next_deviation < deviations_.size() && deviations_[t.next_deviation].from == t.at;
      const Step act = deviates ? deviations_[t.next_deviation++] : view_.successor(t.at);
      if (t.own) offer_around(t, act, outs);
      if (act.out == kNone) return -1;  // a leaf
      const Ticks d = view_.duration(act);
      if (d != 0) sums_[view_.callpath(act)] += d;
      t.at = view_.target(act);
      if (deviates && t.next_deviation == deviations_.size()) t.own = 1;
    }
  }
  PathToken token() const { return token_; }

  // What this process met: time per call path, variants, its best offers.
  std::string result() {
    const auto by_key = [](const Offer& a, const Offer& b) { return a.key() < b.key(); };
    if (offers_.size() > capacity_) {  // the others cannot be kept
      std::nth_element(offers_.begin(), offers_.begin() + static_cast<std::ptrdiff_t>(capacity_), offers_.end(),
                       by_key);
      offers_.resize(capacity_);
    }
    std::sort(offers_.begin(), offers_.end(), by_key);
    Packer out;
    out.put<std::uint64_t>(variants_).put_vector(offers_);
    for (const auto& [cp, d] : sums_) out.put(Sum{cp, d});
    return out.take();
  }

 private:
  // Every activity out of the vertex but the one the path takes: a detour (a variant) or a candidate.
  void offer_around(PathToken& t, const Step& taken, std::vector<Step>& outs) {
    view_.outs(t.at, outs);
    const Ticks tail = view_.tail(t.at);
    for (std::uint32_t order = 0; order < outs.size(); ++order) {
      if (outs[order].out == taken.out) continue;
      const Ticks detour = tail - view_.through(outs[order]);
      if (detour < q_.min_detour) {
        ++variants_;
        continue;
      }
      const Ticks cost = base_ + detour;
      if (cost <= nc_bound_) offers_.push_back({cost, t.step, order, outs[order]});
    }
    ++t.step;
  }

  View view_;
  const NearCriticalQuery& q_;
  Ticks base_, nc_bound_;
  std::size_t capacity_;
  std::vector<Step> deviations_;
  PathToken token_;
  std::map<CallpathId, Ticks> sums_;
  std::uint64_t variants_ = 0;
  std::vector<Offer> offers_;
};

}  // namespace

void mark_critical_path(const Trace& trace, ProcessGroup& group, PagShare& s) {
  const auto end = path_end(trace, group, s);
  CriticalWalk walk(trace, s, group.process());
  if (end) {
    const CriticalToken start{{At::Event, end->first, end->second}, kStart, kNone};
    pass_token(group, trace.holds(end->first), packed(start), [&](std::string& token) {
      const int next = walk.walk(Unpacker(token).get<CriticalToken>());
      if (next >= 0) token = packed(walk.token());
      return next;
    });
  }
  for (Rank r = trace.share->first; r < trace.share->last; ++r)  // walked back: each rank's events descending
    std::reverse(s.critical[r].begin(), s.critical[r].end());
  for (const std::string& packet : all_gather(group, packed(s.critical_launch))) {
    const auto launch = Unpacker(packet).get<Rank>();
    if (launch != kNone) s.critical_launch = launch;
  }
}

NearCriticalPaths share_near_critical_paths(const Trace& trace, ProcessGroup& group, const PagShare& s,
                                            const NearCriticalQuery& q) {
  const SearchBounds bounds = search_bounds(q, s.length);
  NearCriticalPaths r;
  r.critical_length = s.length;
  const std::size_t target = bounds.target;
  r.nc_bound = bounds.nc_bound;
  std::vector<Step> deviations{Step{}};  // what each candidate's `deviation` numbers; 0: the start (a root)
  BoundedCandidates candidates;
  candidates.set_capacity(target + 1);
  if (s.critical_launch != kNone) candidates.offer(0, kNone, 0);  // the start's latest time: 0
  while (r.paths.size() < target && !candidates.empty()) {
    const Candidate c = candidates.pop();
    const auto index = static_cast<std::uint32_t>(r.paths.size());
    r.paths.push_back(NearCriticalPath{s.length - c.cost, {}, c.parent, c.deviation});
    const std::size_t capacity = target - r.paths.size() + 1;
    candidates.set_capacity(capacity);
    std::vector<Step> chain;  // the path's deviations, from the start's
    for (std::uint32_t p = index; r.paths[p].parent != kNone; p = r.paths[p].parent)
      chain.push_back(deviations[r.paths[p].deviation]);
    std::reverse(chain.begin(), chain.end());
    const bool root = chain.empty();
    PathWalk walk(trace, s, q, c.cost, r.nc_bound, capacity, std::move(chain));
    const PathToken start{{At::Start, 0, 0}, 0, 0, static_cast<std::uint8_t>(root ? 1 : 0)};
    pass_token(group, group.process() == 0, packed(start), [&](std::string& token) {
      const int next = walk.walk(Unpacker(token).get<PathToken>());
      if (next >= 0) token = packed(walk.token());
      return next;
    });
    std::vector<Offer> offers;
    std::map<CallpathId, Ticks> sums;
    for (const std::string& packet : all_gather(group, walk.result())) {
      Unpacker in(packet);
      r.paths[index].variants += in.get<std::uint64_t>();
      for (const Offer& o : in.get_vector<Offer>()) offers.push_back(o);
      while (!in.done()) {
        const auto sum = in.get<Sum>();
        sums[sum.callpath] += sum.ticks;
      }
    }
    r.paths[index].callpaths.assign(sums.begin(), sums.end());
    std::sort(offers.begin(), offers.end(), [](const Offer& a, const Offer& b) { return a.key() < b.key(); });
    for (const Offer& o : offers) {
      if (!candidates.accepts(o.cost)) break;
      deviations.push_back(o.act);
      candidates.offer(o.cost, index, static_cast<std::uint32_t>(deviations.size() - 1));
    }
  }
  r.more_available = !candidates.empty();
  return r;
}

}  // namespace wisp::clock
