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
#include <set>
#include <unordered_map>

#include "analysis/bounded_candidates.hpp"
#include "wisp/error.hpp"

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

// Calls fn(id, activity) for every activity of path `index`, root to leaf.
template <typename Fn>
void walk_path(const ActivityGraph& g, const NearCriticalPaths& r, std::size_t index, Fn&& fn) {
  std::vector<std::uint32_t> chain;  // deviations, leaf-most first
  std::uint32_t p = static_cast<std::uint32_t>(index);
  while (r.paths[p].parent != kNone) {
    chain.push_back(r.paths[p].deviation);
    p = r.paths[p].parent;
  }
  std::uint32_t v = r.paths[p].deviation;  // the root vertex
  for (std::size_t i = chain.size(); i-- > 0;) {
    const Activity dev = g.activity(chain[i]);
    while (v != dev.from) {
      const Activity a = g.activity(r.successor[v]);
      fn(r.successor[v], a);
      v = a.to;
    }
    fn(chain[i], dev);
    v = dev.to;
  }
  for (std::uint32_t next = r.successor[v]; next != kNone; next = r.successor[v]) {
    const Activity a = g.activity(next);
    fn(next, a);
    v = a.to;
  }
}

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

}  // namespace

NearCriticalPaths near_critical_paths(const ActivityGraph& g, const Cpm& cpm, const NearCriticalQuery& q) {
  return near_critical_paths(g, cpm, q, critical_path(g, cpm));
}

NearCriticalPaths near_critical_paths(const ActivityGraph& g, const Cpm& cpm, const NearCriticalQuery& q,
                                      const std::vector<std::uint32_t>& critical, unsigned threads) {
  const SearchBounds bounds = search_bounds(q, cpm.length);
  NearCriticalPaths r;
  r.critical_length = cpm.length;
  r.successor = successors(g, cpm, critical, threads);
  const std::size_t target = bounds.target;
  r.nc_bound = bounds.nc_bound;

  BoundedCandidates candidates;
  candidates.set_capacity(target + 1);
  const std::uint32_t critical_root = critical.empty() ? kNone : g.activity(critical.front()).from;
  if (critical_root != kNone) candidates.offer(cpm.latest_at(g, critical_root), kNone, critical_root);
  for (std::uint32_t v = 0; v < g.vertex_count; ++v)
    if (g.is_root(v) && v != critical_root && cpm.latest_at(g, v) <= r.nc_bound)
      candidates.offer(cpm.latest_at(g, v), kNone, v);

  CallpathSums sums(g);
  CostOrderedOut cost_ordered;
  while (r.paths.size() < target && !candidates.empty()) {
    const Candidate c = candidates.pop();
    const auto index = static_cast<std::uint32_t>(r.paths.size());
    r.paths.push_back(NearCriticalPath{cpm.length - c.cost, {}, c.parent, c.deviation});
    walk_path(g, r, index, [&](std::uint32_t, const Activity& a) { sums.add(a.callpath, a.duration); });
    r.paths.back().callpaths = sums.take();
    candidates.set_capacity(target - r.paths.size() + 1);
    // Children: a different activity at any vertex of this path's own part.
    std::uint32_t v = c.parent == kNone ? c.deviation : g.activity(c.deviation).to;
    for (;;) {
      const std::uint32_t next = r.successor[v];
      if (next == g.explicit_count() + v && !g.out_rows.has_items(v)) {  // its chain alone: no other way
        ++v;
        continue;
      }
      if (g.out_rows.size(v) >= q.cost_ordered_from) {
        for (const CostOrderedOut::Out& o : cost_ordered.of(g, cpm, v)) {
          if (o.activity == next) continue;
          if (o.cost < q.min_detour) {  // a detour: a variant of this path
            ++r.paths[index].variants;
            continue;
          }
          const Ticks cost = c.cost + o.cost;
          if (cost > r.nc_bound || !candidates.accepts(cost)) break;  // nor any after it
          candidates.offer(cost, index, o.activity);
        }
        if (next == kNone) break;
        v = g.activity(next).to;
        continue;
      }
      std::uint32_t next_to = kNone;
      g.for_each_outgoing(v, [&](std::uint32_t a, const Activity& act) {
        if (a == next) {
          next_to = act.to;
          return;
        }
        const Ticks detour = cost_of(g, cpm, act);
        if (detour < q.min_detour) {  // a detour: a variant of this path
          ++r.paths[index].variants;
          return;
        }
        const Ticks cost = c.cost + detour;
        if (cost <= r.nc_bound) candidates.offer(cost, index, a);
      });
      if (next == kNone) break;
      v = next_to;
    }
  }
  r.more_available = !candidates.empty();
  return r;
}

std::vector<std::uint32_t> path_activities(const ActivityGraph& g, const NearCriticalPaths& paths, std::size_t index) {
  std::vector<std::uint32_t> out;
  walk_path(g, paths, index, [&](std::uint32_t a, const Activity&) { out.push_back(a); });
  return out;
}

}  // namespace wisp
