// Activity graph indices and topological order. See activity_graph.hpp.
#include "wisp/analysis/activity_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "wisp/error.hpp"

namespace wisp {

std::string_view to_string(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::Computation:
      return "computation";
    case ActivityKind::Mpi:
      return "mpi";
    case ActivityKind::Message:
      return "message";
    case ActivityKind::Rendezvous:
      return "rendezvous";
    case ActivityKind::Collective:
      return "collective";
    case ActivityKind::Synchronisation:
      return "synchronisation";
    case ActivityKind::Launch:
      return "launch";
    case ActivityKind::None:
      return "none";
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
  const auto after =
      std::upper_bound(lanes.begin(), lanes.end(), v, [](std::uint32_t x, const LaneRun& r) { return x < r.first; });
  return after == lanes.begin() ? kNone : std::prev(after)->lane;
}

std::uint64_t ActivityGraph::chain_count() const {
  return static_cast<std::uint64_t>(
      std::count_if(chain_kind.begin(), chain_kind.end(), [](ActivityKind k) { return k != ActivityKind::None; }));
}

template <typename T>
void ActivityGraph::keep_aside(std::vector<std::pair<std::uint32_t, T>>& aside, std::uint32_t v, T value, bool keep) {
  const auto it =
      std::lower_bound(aside.begin(), aside.end(), v, [](const auto& c, std::uint32_t x) { return c.first < x; });
  const bool there = it != aside.end() && it->first == v;
  if (keep && there)
    it->second = value;
  else if (keep)
    aside.insert(it, {v, value});  // chains are mostly added in vertex order: at the end
  else if (there)
    aside.erase(it);
}

template <typename T>
T ActivityGraph::aside_value(const std::vector<std::pair<std::uint32_t, T>>& aside, std::uint32_t v) {
  const auto it =
      std::lower_bound(aside.begin(), aside.end(), v, [](const auto& c, std::uint32_t x) { return c.first < x; });
  if (it == aside.end() || it->first != v) throw Error("activity graph: a chain activity's value is missing");
  return it->second;
}

template void ActivityGraph::keep_aside(std::vector<std::pair<std::uint32_t, Ticks>>&, std::uint32_t, Ticks, bool);
template void ActivityGraph::keep_aside(std::vector<std::pair<std::uint32_t, CallpathId>>&, std::uint32_t, CallpathId,
                                        bool);
template Ticks ActivityGraph::aside_value(const std::vector<std::pair<std::uint32_t, Ticks>>&, std::uint32_t);
template CallpathId ActivityGraph::aside_value(const std::vector<std::pair<std::uint32_t, CallpathId>>&, std::uint32_t);

std::uint64_t ActivityGraph::memory_bytes() const {
  const auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return sizeof(*this) + bytes(activities) + bytes(lanes) + bytes(chain_duration) + bytes(long_chains) +
         bytes(chain_callpath) + bytes(wide_callpaths) + bytes(chain_kind) + out_rows.memory_bytes() + bytes(out) +
         in_rows.memory_bytes() + bytes(in) + bytes(order);
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
  std::vector<std::uint64_t> chain;     // bit v % 64 of word v / 64: v's chain predecessor is not ordered yet
  std::vector<std::uint32_t> incoming;  // per non-empty row of in_rows: explicit ones not ordered yet
  bool waits_for_chain(std::uint32_t v) const { return chain[v >> 6] >> (v & 63) & 1; }
  void chain_done(std::uint32_t v) { chain[v >> 6] &= ~(std::uint64_t{1} << (v & 63)); }
  bool blocked(const ActivityGraph& g, std::uint32_t v) const {
    const std::uint32_t i = g.in_rows.index(v);
    return waits_for_chain(v) || (i != SparseRows::kEmpty && incoming[i] != 0);
  }
};

// Kahn's algorithm; returns the vertices it could order (all of them unless there is a cycle).
// The in-degrees are the incoming CSR's row lengths plus the chain activity. Ready vertices are
// taken last in, first out, and a vertex's chain successor is pushed last: the order follows one
// rank's chain of events as far as it is ready before it turns to another (depth first), so that
// the passes over the graph in this order (CPM, MBM, the ideal-network clock) read each rank's
// vertices nearly sequentially. Any topological order gives those passes the same results; the
// vertices left out on a cycle are the same for every order. The first ready vertices (no chain
// in, no explicit activity in) are found 64 at a time; a chain successor's bit is cleared only if
// it has explicit activities in (only those are asked again), and for all ordered vertices if a
// cycle leaves some out (cycle_breakers() asks which are blocked).
std::vector<ActivityGraph::OrderRun> kahn(const ActivityGraph& g, Pending& pending, std::uint32_t& ordered) {
  const std::size_t words = (g.vertex_count + 63) / 64;
  pending.chain.assign(words, 0);
  const std::uint32_t rows = g.in_rows.nonempty_count();
  pending.incoming.resize(rows);
  for (std::uint32_t i = 0; i < rows; ++i) pending.incoming[i] = g.in_rows.begin[i + 1] - g.in_rows.begin[i];
  std::vector<std::uint32_t> ready;  // taken from the back: the lowest vertex first
  // Where following a chain must stop and look: bit v set if v has explicit activities out, or no
  // chain, or v + 1 has explicit activities in. The vertices between are passed a word at a time.
  std::vector<std::uint64_t> stops(words);
  for (std::size_t w = words; w-- > 0;) {
    const std::uint64_t chains = g.chain_bits(w);
    pending.chain[w] = chains << 1 | std::uint64_t{w > 0 && g.has_chain(static_cast<std::uint32_t>(w * 64 - 1))};
    const std::uint64_t next_in = g.in_rows.marks[w] >> 1 | (w + 1 < words ? g.in_rows.marks[w + 1] << 63 : 0);
    stops[w] = g.out_rows.marks[w] | ~chains | next_in;
    const std::uint32_t n = std::min<std::uint32_t>(64, g.vertex_count - static_cast<std::uint32_t>(w * 64));
    const std::uint64_t valid = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    for (std::uint64_t free = ~(pending.chain[w] | g.in_rows.marks[w]) & valid; free != 0;) {
      const int b = 63 - std::countl_zero(free);
      ready.push_back(static_cast<std::uint32_t>(w * 64 + b));
      free &= ~(std::uint64_t{1} << b);
    }
  }
  std::vector<ActivityGraph::OrderRun> order;
  ordered = 0;
  while (!ready.empty()) {
    std::uint32_t v = ready.back();
    ready.pop_back();
    const std::uint32_t first = v;
    // Along v's chain while the next vertex is ready: it would be pushed last and taken next.
    for (;;) {
      std::size_t w = v >> 6;  // to the next stop: there is one at the chain's end at the latest
      std::uint64_t bits = stops[w] & (~std::uint64_t{0} << (v & 63));
      while (bits == 0) bits = stops[++w];
      v = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
      if (g.out_rows.has_items(v)) {
        const auto [begin, end] = g.out_rows.range(v);
        for (std::uint32_t k = end; k-- > begin;) {
          const std::uint32_t to = g.activities[g.out[k]].to;
          if (--pending.incoming[g.in_rows.index(to)] == 0 && !pending.waits_for_chain(to)) ready.push_back(to);
        }
      }
      if (!g.has_chain(v)) break;
      if (g.in_rows.has_items(v + 1)) {
        pending.chain_done(v + 1);
        if (pending.incoming[g.in_rows.index(v + 1)] != 0) break;
      }
      ++v;
    }
    ordered += v - first + 1;
    if (!order.empty() && order.back().first + order.back().count == first)
      order.back().count += v - first + 1;
    else
      order.push_back({first, v - first + 1});
  }
  if (ordered != g.vertex_count)  // the bits of the ordered vertices, for cycle_breakers()
    for (const ActivityGraph::OrderRun& run : order)
      for (std::uint32_t u = run.first; u < run.first + run.count; ++u) pending.chain_done(u);
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
  build_csr(
      g, [](const Activity& a) { return a.from; }, g.out_rows, g.out);
  build_csr(
      g, [](const Activity& a) { return a.to; }, g.in_rows, g.in);
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
      throw Error(fmt::format("activity graph: activity {} joins vertex {} and {}, but there are only {} vertices", i,
                              a.from, a.to, g.vertex_count));
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
