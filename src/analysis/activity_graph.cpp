// Activity graph indices and topological order. See activity_graph.hpp.
#include "wisp/analysis/activity_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "wisp/error.hpp"

namespace wisp {

std::string_view to_string(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::Computation: return "computation";
    case ActivityKind::Mpi: return "mpi";
    case ActivityKind::Message: return "message";
    case ActivityKind::Rendezvous: return "rendezvous";
    case ActivityKind::Collective: return "collective";
    case ActivityKind::Synchronisation: return "synchronisation";
    case ActivityKind::Launch: return "launch";
    case ActivityKind::None: return "none";
  }
  return "?";
}

std::uint32_t ActivityGraph::add_vertices(std::uint32_t count, std::uint32_t vertex_lane) {
  if (count > kNone - 1 - vertex_count) throw Error("activity graph: more than 2^32 - 2 vertices");
  const bool same = lanes.empty() ? vertex_lane == kNone : lanes.back().lane == vertex_lane;
  if (!same && count > 0) lanes.push_back({vertex_count, vertex_lane});
  const std::uint32_t first = vertex_count;
  vertex_count += count;
  return first;
}

std::uint32_t ActivityGraph::lane_of(std::uint32_t v) const {
  const auto after = std::upper_bound(lanes.begin(), lanes.end(), v,
                                      [](std::uint32_t x, const LaneRun& r) { return x < r.first; });
  return after == lanes.begin() ? kNone : std::prev(after)->lane;
}

std::uint64_t ActivityGraph::chain_count() const {
  return static_cast<std::uint64_t>(std::count_if(chain_kind.begin(), chain_kind.end(),
                                                  [](ActivityKind k) { return k != ActivityKind::None; }));
}

template <typename T>
void ActivityGraph::keep_aside(std::vector<std::pair<std::uint32_t, T>>& aside, std::uint32_t v, T value, bool keep) {
  const auto it = std::lower_bound(aside.begin(), aside.end(), v, [](const auto& c, std::uint32_t x) { return c.first < x; });
  const bool there = it != aside.end() && it->first == v;
  if (keep && there) it->second = value;
  else if (keep) aside.insert(it, {v, value});  // chains are mostly added in vertex order: at the end
  else if (there) aside.erase(it);
}

template <typename T>
T ActivityGraph::aside_value(const std::vector<std::pair<std::uint32_t, T>>& aside, std::uint32_t v) {
  const auto it = std::lower_bound(aside.begin(), aside.end(), v, [](const auto& c, std::uint32_t x) { return c.first < x; });
  if (it == aside.end() || it->first != v) throw Error("activity graph: a chain activity's value is missing");
  return it->second;
}

template void ActivityGraph::keep_aside(std::vector<std::pair<std::uint32_t, Ticks>>&, std::uint32_t, Ticks, bool);
template void ActivityGraph::keep_aside(std::vector<std::pair<std::uint32_t, CallpathId>>&, std::uint32_t, CallpathId, bool);
template Ticks ActivityGraph::aside_value(const std::vector<std::pair<std::uint32_t, Ticks>>&, std::uint32_t);
template CallpathId ActivityGraph::aside_value(const std::vector<std::pair<std::uint32_t, CallpathId>>&, std::uint32_t);

std::uint64_t ActivityGraph::memory_bytes() const {
  const auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return sizeof(*this) + bytes(activities) + bytes(lanes) + bytes(chain_duration) + bytes(long_chains) +
         bytes(chain_callpath) + bytes(wide_callpaths) +
         bytes(chain_kind) + out_rows.memory_bytes() + bytes(out) + in_rows.memory_bytes() + bytes(in) + bytes(order);
}

namespace {

// Counting sort of activity ids by `key` (source or target vertex) into CSR form with sparse row
// ranges, built sparse: the rows' marks first, then counts per non-empty row only (no array per
// vertex). The scatter advances begin[i] as its cursor, which leaves begin[i] = the old begin[i + 1];
// one shift restores it.
template <typename Key>
void build_csr(const ActivityGraph& g, Key key, SparseRows& rows, std::vector<std::uint32_t>& items) {
  rows = SparseRows();
  rows.marks.assign((g.vertex_count + 63) / 64, 0);
  for (const Activity& a : g.activities) rows.marks[key(a) / 64] |= std::uint64_t{1} << (key(a) % 64);
  const std::uint32_t nonempty = count_before(rows.marks, rows.before);
  std::vector<std::uint32_t>& begin = rows.begin;
  begin.assign(nonempty + 1, 0);
  for (const Activity& a : g.activities) ++begin[rows.index(key(a)) + 1];
  for (std::uint32_t i = 0; i < nonempty; ++i) begin[i + 1] += begin[i];
  items.resize(g.activities.size());
  for (std::uint32_t i = 0; i < g.activities.size(); ++i) items[begin[rows.index(key(g.activities[i]))]++] = i;
  for (std::uint32_t i = nonempty; i > 0; --i) begin[i] = begin[i - 1];
  begin[0] = 0;
}

// Kahn's in-degrees, sparse: a vertex waits for its chain predecessor (a bit) and for its explicit
// incoming activities (a count per vertex that has any).
struct Pending {
  std::vector<bool> chain;               // per vertex: its chain predecessor is not ordered yet
  std::vector<std::uint32_t> incoming;   // per non-empty row of in_rows: explicit ones not ordered yet
  bool blocked(const ActivityGraph& g, std::uint32_t v) const {
    const std::uint32_t i = g.in_rows.index(v);
    return chain[v] || (i != SparseRows::kEmpty && incoming[i] != 0);
  }
};

// Kahn's algorithm; returns the vertices it could order (all of them unless there is a cycle).
// The in-degrees are the incoming CSR's row lengths plus the chain activity. Ready vertices are
// taken last in, first out, and a vertex's chain successor is pushed last: the order follows one
// rank's chain of events as far as it is ready before it turns to another (depth first), so that
// the passes over the graph in this order (CPM, MBM, the ideal-network clock) read each rank's
// vertices nearly sequentially. Any topological order gives those passes the same results; the
// vertices left out on a cycle are the same for every order.
std::vector<ActivityGraph::OrderRun> kahn(const ActivityGraph& g, Pending& pending, std::uint32_t& ordered) {
  pending.chain.assign(g.vertex_count, false);
  pending.incoming.resize(g.in_rows.nonempty_count());
  std::vector<std::uint32_t> ready;
  for (std::uint32_t v = g.vertex_count; v-- > 0;) {
    pending.chain[v] = v > 0 && g.has_chain(v - 1);
    const std::uint32_t i = g.in_rows.index(v);
    if (i != SparseRows::kEmpty) pending.incoming[i] = g.in_rows.begin[i + 1] - g.in_rows.begin[i];
    if (!pending.blocked(g, v)) ready.push_back(v);
  }
  std::vector<ActivityGraph::OrderRun> order;
  ordered = 0;
  while (!ready.empty()) {
    std::uint32_t v = ready.back();
    ready.pop_back();
    if (!order.empty() && order.back().first + order.back().count == v)
      ++order.back().count;
    else
      order.push_back({v, 1});
    // Along v's chain while the next vertex is ready: it would be pushed last and taken next.
    for (;;) {
      ++ordered;
      if (g.out_rows.has_items(v)) {
        const auto [first, end] = g.out_rows.range(v);
        for (std::uint32_t k = end; k-- > first;) {
          const std::uint32_t to = g.activities[g.out[k]].to;
          if (--pending.incoming[g.in_rows.index(to)] == 0 && !pending.chain[to]) ready.push_back(to);
        }
      }
      if (!g.has_chain(v)) break;
      pending.chain[v + 1] = false;
      if (pending.blocked(g, v + 1)) break;
      ++v;
      ++order.back().count;
    }
  }
  return order;
}

// The activities to remove to break a cycle: the in-activities from still-blocked vertices of the
// first blocked vertex that has non-local ones (else of the first blocked vertex).
std::vector<std::uint32_t> cycle_breakers(const ActivityGraph& g, const Pending& pending) {
  std::vector<std::uint32_t> fallback;
  for (std::uint32_t v = 0; v < g.vertex_count; ++v) {
    if (!pending.blocked(g, v)) continue;
    std::vector<std::uint32_t> remote, local;
    g.for_each_incoming(v, [&](std::uint32_t id, const Activity& a) {
      if (pending.blocked(g, a.from)) (is_local(a.kind) ? local : remote).push_back(id);
    });
    if (!remote.empty()) return remote;
    if (fallback.empty()) fallback = local;
  }
  return fallback;
}

// Removes activities by id: chain ones lose their kind, explicit ones are erased (the ids of the
// later explicit ones shift down, as they would in any list).
void remove_activities(ActivityGraph& g, std::vector<std::uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  const std::uint32_t explicit_count = g.explicit_count();
  for (std::size_t k = ids.size(); k-- > 0;) {
    if (ids[k] >= explicit_count)
      g.chain_kind[ids[k] - explicit_count] = ActivityKind::None;
    else
      g.activities.erase(g.activities.begin() + ids[k]);
  }
}

// Builds the indices and Kahn's order; true if every vertex is ordered, else `pending` tells the
// blocked ones.
bool order(ActivityGraph& g, Pending& pending) {
  build_csr(g, [](const Activity& a) { return a.from; }, g.out_rows, g.out);
  build_csr(g, [](const Activity& a) { return a.to; }, g.in_rows, g.in);
  std::uint32_t ordered = 0;
  g.order = kahn(g, pending, ordered);
  return ordered == g.vertex_count;
}

// The first variant alone: the second variant's own activities go.
void drop_second_variant(ActivityGraph& g) {
  std::erase_if(g.activities, [](const Activity& a) { return !(a.variants & kFirstVariant); });
  g.variants = kFirstVariant;
}

}  // namespace

std::uint64_t index_graph(ActivityGraph& g) {
  for (std::size_t i = 0; i < g.activities.size(); ++i) {
    const Activity& a = g.activities[i];
    if (a.from >= g.vertex_count || a.to >= g.vertex_count)
      throw Error(fmt::format("activity graph: activity {} joins vertex {} and {}, but there are only {} vertices",
                              i, a.from, a.to, g.vertex_count));
  }
  if (!g.chain_kind.empty()) {
    g.chain_duration.resize(g.vertex_count, 0);
    g.chain_callpath.resize(g.vertex_count, 0xffff);
    g.chain_kind.resize(g.vertex_count, ActivityKind::None);
  }
  // Both variants are ordered at once; a cycle there that the first variant alone may not have
  // drops the second variant's own activities, then cycles of the first are broken as they come.
  Pending pending;
  bool ordered = order(g, pending);
  if (!ordered && (g.variants & kSecondVariant)) {
    drop_second_variant(g);
    ordered = order(g, pending);
  }
  std::uint64_t removed = 0;
  while (!ordered) {
    const std::vector<std::uint32_t> drop = cycle_breakers(g, pending);
    remove_activities(g, drop);
    removed += drop.size();
    ordered = order(g, pending);
  }
  g.order.shrink_to_fit();
  return removed;
}

}  // namespace wisp
