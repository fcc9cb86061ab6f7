// Forward longest-path sweeps over an indexed activity graph that keep a value only at the vertices
// with explicit incoming activities (about one in ten in a PAG) instead of at every vertex. Along a
// chain the value is carried: a vertex whose only predecessor is its chain predecessor comes right
// after it in index_graph()'s order (Kahn pushes the chain successor last, so it is taken next).
// For passes that need lengths, not per-vertex times: the MBM's lanes, the ideal-network clock.
#pragma once

#include <vector>

#include "wisp/analysis/activity_graph.hpp"
#include "wisp/error.hpp"

namespace wisp {

// relax(Value& target, const Value& from, const Activity& a): target = max(target, from + a's weight);
// visit(v, const Value& value): the longest path to v (0 at roots), every vertex once, in order.
// Values start at Value{} (zero), as in longest_path(); weights must not be negative.
// What the sweeps in order throw when a vertex whose one activity in is its chain does not come
// right after its chain predecessor (index_graph() orders it so).
inline Error chain_out_of_order() {
  return Error("activity graph: a chain vertex does not follow its predecessor in the order");
}

template <typename Value, typename Relax, typename Visit>
void chain_sweep(const ActivityGraph& g, Variant variant, std::vector<Value>& stored, Relax&& relax, Visit&& visit) {
  stored.assign(g.in_rows.nonempty_count(), Value{});
  Value carried{};
  // Along a chain (the value arrives from v - 1): carried, or stored if v + 1 has explicit ones in.
  const auto relax_chain = [&](std::uint32_t v, const Value& value) {
    if (g.in_rows.has_items(v + 1)) {
      relax(stored[g.in_rows.index(v + 1)], value, g.chain(v));
    } else {
      carried = Value{};
      relax(carried, value, g.chain(v));
    }
  };
  for (const ActivityGraph::OrderRun& run : g.order) {
    for (std::uint32_t v = run.first; v < run.first + run.count; ++v) {
      Value value{};
      if (g.in_rows.has_items(v)) {
        value = stored[g.in_rows.index(v)];
      } else if (v > 0 && g.has_chain(v - 1)) {
        if (v == run.first) throw chain_out_of_order();
        value = carried;
      }
      visit(v, value);
      if (!g.out_rows.has_items(v)) {  // its chain alone, if any (most vertices)
        if (g.has_chain(v)) relax_chain(v, value);
        continue;
      }
      g.for_each_outgoing(
          v,
          [&](std::uint32_t, const Activity& a) {
            // Explicit activities always end at a stored vertex; a chain may end at a carried one.
            if (a.to == v + 1 && !g.in_rows.has_items(a.to)) {
              carried = Value{};
              relax(carried, value, a);
            } else {
              relax(stored[g.in_rows.index(a.to)], value, a);
            }
          },
          variant);
    }
  }
}

}  // namespace wisp
