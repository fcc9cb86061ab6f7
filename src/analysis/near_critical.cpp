// Near-critical paths by best-first search on slack. See near_critical.hpp.
//
// With T(v) = d_cp - LF(v) the longest path from v to a leaf, taking activity a = (u -> v) costs
// delta(a) = T(u) - d(a) - T(v) >= 0 against the best continuation from u, and starting at root r
// costs d_cp - T(r). A path's duration is d_cp minus the sum of its costs. Every path except the
// critical one is its parent path with one deviating activity (taken at a vertex after the parent's
// own deviation), followed by zero-cost successors to a leaf. Popping candidates by cost therefore
// yields the paths in non-increasing duration, each exactly once; only the best (k - found + 1)
// candidates can still matter, so the candidate set stays O(k).
#include "wisp/analysis/near_critical.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "analysis/bounded_candidates.hpp"
#include "analysis/ghost_sweep.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/group/pack.hpp"

namespace wisp {

Successors::Successors(std::uint32_t first_chain_id, std::uint32_t first_vertex)
    : first_chain_(first_chain_id), first_(first_vertex), size_(first_vertex) {
  if (first_vertex % 64 != 0) throw Error("near-critical paths: successors must start at a multiple of 64");
}

void Successors::push(std::uint32_t v, std::uint32_t activity) {
  if (v != size_) throw Error("near-critical paths: successors must be set in vertex order");
  const std::uint32_t i = v - first_;
  if (i % 64 == 0) {
    chain_.push_back(0);
    other_.push_back(0);
    before_.push_back(static_cast<std::uint32_t>(others_.size()));
  }
  const std::uint64_t bit = std::uint64_t{1} << (i % 64);
  if (activity != kNone && activity == first_chain_ + v) {
    chain_[i / 64] |= bit;
  } else if (activity != kNone) {
    other_[i / 64] |= bit;
    others_.push_back(activity);
  }
  ++size_;
}

void Successors::push_chains(std::uint32_t v, std::uint32_t end) {
  if (v != size_) throw Error("near-critical paths: successors must be set in vertex order");
  while (v < end) {
    const std::uint32_t i = v - first_;
    if (i % 64 == 0) {
      chain_.push_back(0);
      other_.push_back(0);
      before_.push_back(static_cast<std::uint32_t>(others_.size()));
    }
    const std::uint32_t n = std::min<std::uint32_t>(64 - i % 64, end - v);
    chain_[i / 64] |= (n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1) << (i % 64);
    v += n;
  }
  size_ = std::max(size_, end);
}

void Successors::append(Successors&& later) {
  if (later.first_ != size_ || (size_ - first_) % 64 != 0 || later.first_chain_ != first_chain_)
    throw Error("near-critical paths: appended successors must follow on a word boundary");
  const auto offset = static_cast<std::uint32_t>(others_.size());
  chain_.insert(chain_.end(), later.chain_.begin(), later.chain_.end());
  other_.insert(other_.end(), later.other_.begin(), later.other_.end());
  for (std::uint32_t b : later.before_) before_.push_back(b + offset);
  others_.insert(others_.end(), later.others_.begin(), later.others_.end());
  size_ = later.size_;
  later = Successors();
}

std::uint32_t Successors::operator[](std::uint32_t v) const {
  const std::uint32_t i = v - first_;
  const std::uint64_t bit = std::uint64_t{1} << (i % 64);
  if (chain_[i / 64] & bit) return first_chain_ + v;
  const std::uint64_t word = other_[i / 64];
  if (!(word & bit)) return kNone;
  return others_[before_[i / 64] + static_cast<std::uint32_t>(std::popcount(word & (bit - 1)))];
}

std::uint64_t Successors::memory_bytes() const {
  return chain_.capacity() * 8 + other_.capacity() * 8 + before_.capacity() * 4 + others_.capacity() * 4;
}

Ticks NearCriticalPath::time_of(CallpathId cp) const {
  const auto it =
      std::lower_bound(callpaths.begin(), callpaths.end(), cp, [](const auto& e, CallpathId c) { return e.first < c; });
  return it != callpaths.end() && it->first == cp ? it->second : 0;
}

double NearCriticalPaths::last_nc_percent() const {
  if (paths.empty() || critical_length <= 0) return 0;
  return 100.0 * static_cast<double>(critical_length - paths.back().duration) / static_cast<double>(critical_length);
}

namespace {

Ticks cost_of(const ActivityGraph& g, const Cpm& cpm, const Activity& act) {
  return cpm.latest_at(g, act.to) - act.duration - cpm.latest_at(g, act.from);
}

// Zero-cost successor of vertices [first, end): the critical path's own activity on it, else the
// first zero-cost outgoing activity, local ones first. `on_critical`: (vertex, its critical
// activity), sorted; `marked`: the vertices in it.
Successors successors_of(const ActivityGraph& g, const Cpm& cpm,
                         const std::vector<std::pair<std::uint32_t, std::uint32_t>>& on_critical,
                         const std::vector<bool>& marked, std::uint32_t first, std::uint32_t end) {
  Successors succ(g.explicit_count(), first);
  const bool sparse = !cpm.tails.empty();
  for (std::uint32_t v = first; v < end; ++v) {
    if (sparse && !cpm.tails.kept(v)) {  // a chain's inside: each vertex's one activity out, at zero cost
      const std::uint32_t gap_end = cpm.tails.first_kept(v, end);  // (on the critical path too)
      succ.push_chains(v, gap_end);
      v = gap_end - 1;
      continue;
    }
    if (marked[v]) {
      const auto it = std::lower_bound(on_critical.begin(), on_critical.end(), std::pair{v, std::uint32_t{0}});
      succ.push(v, it->second);
      continue;
    }
    if (!sparse && !ChainTails::keeps(g, v)) {  // inside a chain: its one activity out, at zero cost
      succ.push(v, g.explicit_count() + v);
      continue;
    }
    std::uint32_t best = kNone;
    bool local = false;
    g.for_each_outgoing(v, [&](std::uint32_t a, const Activity& act) {
      if (cost_of(g, cpm, act) != 0) return;
      if (best == kNone || (is_local(act.kind) && !local)) {
        best = a;
        local = is_local(act.kind);
      }
    });
    succ.push(v, best);
  }
  return succ;
}

// All vertices' successors, in `threads` parts of whole words of vertices.
Successors successors(const ActivityGraph& g, const Cpm& cpm, const std::vector<std::uint32_t>& critical,
                      unsigned threads) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> on_critical;  // (vertex, its critical activity)
  for (std::uint32_t a : critical) on_critical.emplace_back(g.activity(a).from, a);
  std::sort(on_critical.begin(), on_critical.end());
  std::vector<bool> marked(g.vertex_count, false);
  for (const auto& [v, a] : on_critical) marked[v] = true;
  const std::uint32_t words = (g.vertex_count + 63) / 64;
  const std::uint32_t parts = std::max(1u, std::min(threads, words));
  const auto border = [&](std::uint32_t p) { return std::min(g.vertex_count, words * p / parts * 64); };
  std::vector<std::future<Successors>> later;
  for (std::uint32_t p = 1; p < parts; ++p)
    later.push_back(std::async(
        std::launch::async, [&, p] { return successors_of(g, cpm, on_critical, marked, border(p), border(p + 1)); }));
  Successors succ = successors_of(g, cpm, on_critical, marked, 0, border(1));
  for (auto& part : later) succ.append(part.get());
  return succ;
}

// The activities out of vertices with many (a collective's synchronisation vertex: one per member),
// by their cost (cost_of), ties in the order listed: a path through such a vertex offers them
// cheapest first and stops at the first one the candidates cannot keep, instead of computing every
// cost on every path. Which candidates are kept, and their order, is the same: BoundedCandidates
// keeps the cheapest by (cost, offer order), and the order among equal costs is kept.
class CostOrderedOut {
 public:
  struct Out {
    Ticks cost;
    std::uint32_t activity;
  };
  const std::vector<Out>& of(const ActivityGraph& g, const Cpm& cpm, std::uint32_t v) {
    const auto found = by_vertex_.try_emplace(v);  // no structured binding: clang 14 cannot capture one
    std::vector<Out>& outs = found.first->second;
    if (found.second) {
      g.for_each_outgoing(v, [&](std::uint32_t a, const Activity& act) { outs.push_back({cost_of(g, cpm, act), a}); });
      std::stable_sort(outs.begin(), outs.end(), [](const Out& x, const Out& y) { return x.cost < y.cost; });
    }
    return outs;
  }

 private:
  std::unordered_map<std::uint32_t, std::vector<Out>> by_vertex_;
};

// Dense per-call-path accumulator (call path ids are small; the two sentinels get own slots).
class CallpathSums {
 public:
  explicit CallpathSums(const ActivityGraph& g) {
    CallpathId top = 0;
    for (const Activity& a : g.activities)
      if (a.callpath < kLaunchCallpath) top = std::max(top, a.callpath + 1);
    for (std::uint32_t v = 0; v < g.chain_kind.size(); ++v)
      if (g.has_chain(v) && g.chain_callpath_of(v) < kLaunchCallpath) top = std::max(top, g.chain_callpath_of(v) + 1);
    sums_.assign(static_cast<std::size_t>(top) + 2, 0);
    seen_.assign(sums_.size(), false);
  }
  void add(CallpathId cp, Ticks d) {
    const std::size_t slot = slot_of(cp);
    if (!seen_[slot]) {
      seen_[slot] = true;
      touched_.push_back(cp);
    }
    sums_[slot] += d;
  }
  std::vector<std::pair<CallpathId, Ticks>> take() {
    std::sort(touched_.begin(), touched_.end());
    std::vector<std::pair<CallpathId, Ticks>> out;
    out.reserve(touched_.size());
    for (CallpathId cp : touched_) {
      const std::size_t slot = slot_of(cp);
      out.emplace_back(cp, sums_[slot]);
      sums_[slot] = 0;
      seen_[slot] = false;
    }
    touched_.clear();
    return out;
  }

 private:
  std::size_t slot_of(CallpathId cp) const {
    if (cp == kNone) return sums_.size() - 1;
    if (cp == kLaunchCallpath) return sums_.size() - 2;
    return cp;
  }
  std::vector<Ticks> sums_;
  std::vector<bool> seen_;
  std::vector<CallpathId> touched_;
};

// A deviation of a path, in the part of the graph that holds it (0 in a whole graph).
struct Deviation {
  std::uint32_t activity = kNone;
  std::uint32_t part = 0;
};

// The deviations path `index` follows from its root, root-most first, and its root (a vertex).
std::vector<Deviation> deviations_of(const NearCriticalPaths& r, std::size_t index, Deviation& root) {
  std::vector<Deviation> chain;
  auto p = static_cast<std::uint32_t>(index);
  for (; r.paths[p].parent != kNone; p = r.paths[p].parent) chain.push_back({r.paths[p].deviation, r.paths[p].part});
  root = {r.paths[p].deviation, r.paths[p].part};
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// Walks paths in this part of the graph: from a vertex along the path's deviations, then along
// the zero-cost successors, to a leaf, or to an export ghost (the path goes on in another part).
// On the path's own part (every deviation taken) each vertex offers its other activities out to
// the search: their slack added to the path's (`cost`), below min_detour counted as variants.
class PathWalker {
 public:
  PathWalker(const ActivityGraph& g, const Cpm& cpm, const NearCriticalQuery& q, const NearCriticalPaths& r,
             std::uint32_t part, std::vector<bool> exports)
      : g_(g), cpm_(cpm), q_(q), r_(r), part_(part), exports_(std::move(exports)) {}

  bool is_export(std::uint32_t v) const { return !exports_.empty() && exports_[v]; }

  // `taken`: the chain's deviations already taken (advanced here). on_activity(id, activity) for
  // each activity of the path in this part but the stand-ins into export ghosts. Sink: accepts(cost),
  // offer(cost, activity), variant(). Returns the vertex it stopped at.
  template <typename OnActivity, typename Sink>
  std::uint32_t walk(std::uint32_t v, const std::vector<Deviation>& chain, std::size_t& taken, Ticks cost,
                     OnActivity&& on_activity, Sink& sink) {
    std::uint32_t from = next_from(chain, taken);
    for (;;) {
      const bool own = taken == chain.size();
      std::uint32_t next = r_.successor[v];
      if (v == from) {
        next = chain[taken++].activity;
        from = next_from(chain, taken);
      }
      if constexpr (Sink::kOffers)
        if (own) offer_children(v, next, cost, sink);
      if (next == kNone) return v;
      const Activity a = g_.activity(next);
      v = a.to;
      if (is_export(v)) return v;
      on_activity(next, a);
    }
  }

 private:
  // The vertex the next deviation leaves, if it is in this part (else kNone).
  std::uint32_t next_from(const std::vector<Deviation>& chain, std::size_t taken) const {
    if (taken == chain.size() || chain[taken].part != part_) return kNone;
    return g_.activity(chain[taken].activity).from;
  }

  template <typename Sink>
  void offer_children(std::uint32_t v, std::uint32_t next, Ticks cost, Sink& sink) {
    if (next == g_.explicit_count() + v && !g_.out_rows.has_items(v)) return;  // its chain alone: no other way
    if (g_.out_rows.size(v) >= q_.cost_ordered_from) {
      for (const CostOrderedOut::Out& o : cost_ordered_.of(g_, cpm_, v)) {
        if (o.activity == next) continue;
        if (o.cost < q_.min_detour) {  // a detour: a variant of this path
          sink.variant();
          continue;
        }
        const Ticks total = cost + o.cost;
        if (total > r_.nc_bound || !sink.accepts(total)) break;  // nor any after it
        sink.offer(total, o.activity);
      }
      return;
    }
    g_.for_each_outgoing(v, [&](std::uint32_t a, const Activity& act) {
      if (a == next) return;
      const Ticks detour = cost_of(g_, cpm_, act);
      if (detour < q_.min_detour) {  // a detour: a variant of this path
        sink.variant();
        return;
      }
      if (cost + detour <= r_.nc_bound) sink.offer(cost + detour, a);
    });
  }

  const ActivityGraph& g_;
  const Cpm& cpm_;
  const NearCriticalQuery& q_;
  const NearCriticalPaths& r_;
  std::uint32_t part_;
  std::vector<bool> exports_;  // per vertex: an export ghost (empty: a whole graph)
  CostOrderedOut cost_ordered_;
};

// The search's candidates, offered to directly (a whole graph).
struct DirectOffers {
  static constexpr bool kOffers = true;
  BoundedCandidates& candidates;
  std::uint32_t parent;
  std::uint64_t& variants;
  bool accepts(Ticks cost) const { return candidates.accepts(cost); }
  void offer(Ticks cost, std::uint32_t activity) { candidates.offer(cost, parent, activity); }
  void variant() { ++variants; }
};

// A walk's offers in this part, kept until the walk is over (spread over processes): the best
// `capacity` by (cost, order), each with the leg of the walk it was made on. Only they can be among
// the search's best once every part's are offered in the walk's order.
struct HeldOffers {
  static constexpr bool kOffers = true;
  const BoundedCandidates& candidates;  // as before the walk
  BoundedCandidates held;               // parent: the leg
  std::uint32_t leg = 0;
  std::uint64_t variants = 0;
  bool accepts(Ticks cost) const { return candidates.accepts(cost) && held.accepts(cost); }
  void offer(Ticks cost, std::uint32_t activity) { held.offer(cost, leg, activity); }
  void variant() { ++variants; }
};

// No offers: the path's activities only.
struct NoOffers {
  static constexpr bool kOffers = false;
};

// Where a walk goes on in another part: at its import ghost `ghost` (PagGhost::peer of the export
// ghost it crossed), with `taken` deviations behind it, on leg `leg`; or it is over.
struct WalkLeg {
  std::uint64_t taken = 0;
  std::uint32_t ghost = 0;
  std::uint32_t leg = 0;
  std::uint32_t done = 0;
};
struct HeldOffer {
  Ticks cost;
  std::uint64_t order;  // leg, then offer order
  std::uint32_t activity;
  std::uint32_t part;
};
struct CallpathTime {
  CallpathId callpath;
  Ticks time;
};

// The search over the parts of a spread graph (`pag`), or a whole one (`part` 0 of one, no ghosts).
class Search {
 public:
  Search(const ActivityGraph& g, const Cpm& cpm, const NearCriticalQuery& q, const std::vector<std::uint32_t>& critical,
         unsigned threads, const Pag* pag, ProcessGroup& group)
      : g_(g), cpm_(cpm), q_(q), group_(group), pag_(pag), sums_(g) {
    const SearchBounds bounds = search_bounds(q, cpm.length);
    r_.critical_length = cpm.length;
    r_.successor = successors(g, cpm, critical, threads);
    r_.nc_bound = bounds.nc_bound;
    target_ = bounds.target;
    candidates_.set_capacity(target_ + 1);
    std::vector<bool> exports;
    std::vector<bool> imports;
    if (pag != nullptr && !pag->ghosts.empty()) {
      exports.assign(g.vertex_count, false);
      imports.assign(g.vertex_count, false);
      for (const PagGhost& gh : pag->ghosts) (gh.import ? imports : exports)[gh.vertex] = true;
    }
    walker_.emplace(g, cpm, q, r_, part(), std::move(exports));
    offer_roots(critical, imports);
  }

  NearCriticalPaths run() {
    while (r_.paths.size() < target_ && !candidates_.empty()) {
      const Candidate c = candidates_.pop();
      const auto index = static_cast<std::uint32_t>(r_.paths.size());
      NearCriticalPath path{cpm_.length - c.cost, {}, c.parent, c.deviation};
      path.part = c.part;
      r_.paths.push_back(path);
      candidates_.set_capacity(target_ - r_.paths.size() + 1);
      Deviation root;
      const std::vector<Deviation> chain = deviations_of(r_, index, root);
      if (group_.processes() == 1) {
        DirectOffers sink{candidates_, index, r_.paths[index].variants};
        std::size_t taken = 0;
        walker_->walk(root.activity, chain, taken, c.cost, add_time(), sink);
        r_.paths[index].callpaths = sums_.take();
      } else {
        walk_over_parts(index, root, chain, c.cost);
      }
    }
    r_.more_available = !candidates_.empty();
    return std::move(r_);
  }

 private:
  std::uint32_t part() const { return static_cast<std::uint32_t>(group_.process()); }
  // on_activity of the walks: the path's time per call path.
  struct AddTime {
    CallpathSums& sums;
    void operator()(std::uint32_t, const Activity& a) const { sums.add(a.callpath, a.duration); }
  };
  AddTime add_time() { return AddTime{sums_}; }

  // The critical path's root first, then the other roots (not the imports: their activity comes
  // from another part) within the bound, part by part.
  void offer_roots(const std::vector<std::uint32_t>& critical, const std::vector<bool>& imports) {
    const auto imported = [&](std::uint32_t v) { return !imports.empty() && imports[v]; };
    std::uint32_t critical_root = kNone;
    if (!critical.empty() && !imported(g_.activity(critical.front()).from))
      critical_root = g_.activity(critical.front()).from;
    Packer mine;
    mine.put(critical_root).put(critical_root == kNone ? Ticks{0} : cpm_.latest_at(g_, critical_root));
    for (std::uint32_t v = 0; v < g_.vertex_count; ++v)
      if (g_.is_root(v) && v != critical_root && !imported(v) && cpm_.latest_at(g_, v) <= r_.nc_bound)
        mine.put(v).put(cpm_.latest_at(g_, v));
    const std::vector<std::string> parts = all_gather(group_, mine.take());
    for (std::size_t p = 0; p < parts.size(); ++p) {
      Unpacker in(parts[p]);
      const auto root = in.get<std::uint32_t>();
      const auto latest = in.get<Ticks>();
      if (root != kNone) candidates_.offer(latest, kNone, root, static_cast<std::uint32_t>(p));
    }
    for (std::size_t p = 0; p < parts.size(); ++p) {
      Unpacker in(parts[p]);
      in.get<std::uint32_t>();
      in.get<Ticks>();
      while (!in.done()) {
        const auto v = in.get<std::uint32_t>();
        candidates_.offer(in.get<Ticks>(), kNone, v, static_cast<std::uint32_t>(p));
      }
    }
  }

  // Path `index` walked leg by leg, each in the part that holds it; then every part's findings
  // (call-path times, variants, offers) go to every part, which offers them in the walk's order.
  void walk_over_parts(std::uint32_t index, const Deviation& root, const std::vector<Deviation>& chain, Ticks cost) {
    HeldOffers sink{candidates_, {}, 0, 0};
    sink.held.set_capacity(target_ - r_.paths.size() + 1);
    std::uint32_t v = root.part == part() ? root.activity : kNone;
    std::size_t taken = 0;
    for (;;) {
      if (v == kNone) {  // the walk is in another part
        const auto arrived = await_walk<WalkLeg>(group_, *pag_, true);
        if (!arrived) break;
        v = arrived->second;
        taken = arrived->first.taken;
        sink.leg = arrived->first.leg;
      }
      const std::uint32_t stop = walker_->walk(v, chain, taken, cost, add_time(), sink);
      if (walker_->is_export(stop)) {
        const PagGhost& gh = *pag_->ghost_at(stop);
        group_.send(gh.process, packed(WalkLeg{taken, gh.peer, sink.leg + 1, 0}));
        v = kNone;
        continue;
      }
      end_walk<WalkLeg>(group_);
      break;
    }
    merge_findings(index, sink);
  }

  void merge_findings(std::uint32_t index, HeldOffers& sink) {
    std::vector<HeldOffer> offers;
    for (const Candidate& c : sink.held.take())
      offers.push_back({c.cost, std::uint64_t{c.parent} << 32 | c.seq, c.deviation, part()});
    std::vector<CallpathTime> times;
    for (const auto& [cp, t] : sums_.take()) times.push_back({cp, t});
    const std::string mine = Packer().put(sink.variants).put_vector(times).put_vector(offers).take();
    offers.clear();
    std::map<CallpathId, Ticks> all_times;
    for (const std::string& packet : all_gather(group_, mine)) {
      Unpacker in(packet);
      r_.paths[index].variants += in.get<std::uint64_t>();
      for (const CallpathTime& t : in.get_vector<CallpathTime>()) all_times[t.callpath] += t.time;
      const std::vector<HeldOffer> theirs = in.get_vector<HeldOffer>();
      offers.insert(offers.end(), theirs.begin(), theirs.end());
    }
    std::sort(offers.begin(), offers.end(), [](const HeldOffer& a, const HeldOffer& b) { return a.order < b.order; });
    for (const HeldOffer& o : offers) candidates_.offer(o.cost, index, o.activity, o.part);
    r_.paths[index].callpaths.assign(all_times.begin(), all_times.end());
  }

  const ActivityGraph& g_;
  const Cpm& cpm_;
  const NearCriticalQuery& q_;
  ProcessGroup& group_;
  const Pag* pag_;  // spread: the part searched
  NearCriticalPaths r_;
  std::size_t target_ = 0;
  BoundedCandidates candidates_;
  CallpathSums sums_;
  std::optional<PathWalker> walker_;
};

}  // namespace

NearCriticalPaths near_critical_paths(const ActivityGraph& g, const Cpm& cpm, const NearCriticalQuery& q,
                                      const std::vector<std::uint32_t>& critical, unsigned threads) {
  SoloProcess alone;
  return Search(g, cpm, q, critical, threads, nullptr, alone).run();
}

NearCriticalPaths near_critical_paths(const Pag& pag, const Cpm& cpm, const NearCriticalQuery& q,
                                      const std::vector<std::uint32_t>& critical, ProcessGroup& group,
                                      unsigned threads) {
  if (!pag.spread) return near_critical_paths(pag.graph, cpm, q, critical, threads);
  return Search(pag.graph, cpm, q, critical, threads, &pag, group).run();
}

std::vector<std::uint32_t> path_activities(const ActivityGraph& g, const NearCriticalPaths& paths, std::size_t index) {
  const Cpm none;
  const NearCriticalQuery query;
  PathWalker walker(g, none, query, paths, 0, {});
  Deviation root;
  const std::vector<Deviation> chain = deviations_of(paths, index, root);
  std::vector<std::uint32_t> out;
  std::size_t taken = 0;
  NoOffers sink;
  walker.walk(
      root.activity, chain, taken, 0, [&](std::uint32_t a, const Activity&) { out.push_back(a); }, sink);
  return out;
}

}  // namespace wisp
