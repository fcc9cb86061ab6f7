// Activity graph indices and topological order. See activity_graph.hpp.
#include "wisp/analysis/activity_graph.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  }
  return "?";
}

std::uint32_t ActivityGraph::add_vertex(std::uint32_t vertex_lane) {
  if (!lane.empty() || vertex_lane != kNone) {
    lane.resize(vertex_count, kNone);
    lane.push_back(vertex_lane);
  }
  return vertex_count++;
}

std::uint64_t ActivityGraph::memory_bytes() const {
  const auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return sizeof(*this) + bytes(activities) + bytes(lane) + bytes(out_begin) + bytes(out) +
         bytes(in_begin) + bytes(in) + bytes(order);
}

namespace {

// Counting sort of activity ids by `key` (source or target vertex) into CSR form. The scatter
// advances begin[v] as its cursor, which leaves begin[v] = the old begin[v + 1]; one shift restores
// it (no second array of cursors).
template <typename Key>
void build_csr(const ActivityGraph& g, Key key, std::vector<std::uint32_t>& begin,
               std::vector<std::uint32_t>& items) {
  begin.assign(g.vertex_count + 1, 0);
  for (const Activity& a : g.activities) ++begin[key(a) + 1];
  for (std::uint32_t v = 0; v < g.vertex_count; ++v) begin[v + 1] += begin[v];
  items.resize(g.activities.size());
  for (std::uint32_t i = 0; i < g.activities.size(); ++i) items[begin[key(g.activities[i])]++] = i;
  for (std::uint32_t v = g.vertex_count; v > 0; --v) begin[v] = begin[v - 1];
  begin[0] = 0;
}

// Kahn's algorithm; returns the vertices it could order (all of them unless there is a cycle).
// The in-degrees are the incoming CSR's row lengths. Ready vertices are taken last in, first out:
// the order follows one rank's chain of events as far as it is ready before it turns to another
// (depth first), so that the passes over the graph in this order (CPM, MBM, the ideal-network
// clock) read each rank's vertices and activities nearly sequentially. Any topological order gives
// those passes the same results; the vertices left out on a cycle are the same for every order.
std::vector<std::uint32_t> kahn(const ActivityGraph& g, std::vector<std::uint32_t>& pending) {
  pending.resize(g.vertex_count);
  std::vector<std::uint32_t> ready;
  for (std::uint32_t v = g.vertex_count; v-- > 0;) {
    pending[v] = g.in_begin[v + 1] - g.in_begin[v];
    if (pending[v] == 0) ready.push_back(v);
  }
  std::vector<std::uint32_t> order;
  order.reserve(g.vertex_count);
  while (!ready.empty()) {
    const std::uint32_t v = ready.back();
    ready.pop_back();
    order.push_back(v);
    const std::span<const std::uint32_t> out = g.outgoing(v);
    for (auto a = out.rbegin(); a != out.rend(); ++a)
      if (--pending[g.activities[*a].to] == 0) ready.push_back(g.activities[*a].to);
  }
  return order;
}

// The activities to remove to break a cycle: the in-activities from still-blocked vertices of the
// first blocked vertex that has non-local ones (else of the first blocked vertex).
std::vector<std::uint32_t> cycle_breakers(const ActivityGraph& g, const std::vector<std::uint32_t>& pending) {
  std::vector<std::uint32_t> fallback;
  for (std::uint32_t v = 0; v < g.vertex_count; ++v) {
    if (pending[v] == 0) continue;
    std::vector<std::uint32_t> remote, local;
    for (std::uint32_t a : g.incoming(v)) {
      if (pending[g.activities[a].from] == 0) continue;
      (is_local(g.activities[a].kind) ? local : remote).push_back(a);
    }
    if (!remote.empty()) return remote;
    if (fallback.empty()) fallback = local;
  }
  return fallback;
}

}  // namespace

std::uint64_t index_graph(ActivityGraph& g) {
  if (!g.lane.empty()) g.lane.resize(g.vertex_count, kNone);
  for (std::size_t i = 0; i < g.activities.size(); ++i) {
    const Activity& a = g.activities[i];
    if (a.from >= g.vertex_count || a.to >= g.vertex_count)
      throw Error(fmt::format("activity graph: activity {} joins vertex {} and {}, but there are only {} vertices",
                              i, a.from, a.to, g.vertex_count));
  }
  std::uint64_t removed = 0;
  for (;;) {
    build_csr(g, [](const Activity& a) { return a.from; }, g.out_begin, g.out);
    build_csr(g, [](const Activity& a) { return a.to; }, g.in_begin, g.in);
    std::vector<std::uint32_t> pending;
    g.order = kahn(g, pending);
    if (g.order.size() == g.vertex_count) return removed;
    std::vector<std::uint32_t> drop = cycle_breakers(g, pending);
    std::sort(drop.begin(), drop.end());
    for (std::size_t k = drop.size(); k-- > 0;) g.activities.erase(g.activities.begin() + drop[k]);
    removed += drop.size();
  }
}

}  // namespace wisp
