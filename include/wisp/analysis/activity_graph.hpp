// A directed acyclic multigraph of activities (paper 001 §2.1): edges are activities with a
// duration and a label (call path, kind), vertices mark activity boundaries. The program activity
// graph (pag.hpp) is one; tests build small ones by hand. Durations are integer clock ticks so that
// ties, slacks and path lengths are exact.
//
// Chains: nearly every activity of a PAG joins two consecutive events of one rank (vertex v to
// v + 1). Those are *chain* activities, kept by columns per vertex with no endpoints and no index
// entries; only the others (messages, collectives, launches) are stored as Activity records and
// indexed. Both kinds have ids: explicit activity k is id k, the chain activity leaving v is id
// explicit_count() + v. Iteration lists a vertex's activities in the order they were added.
//
// Variants: one graph can hold two variants of its explicit dependencies that share everything
// else (the PAG keeps the ideal network's rendezvous beside the observed ones, so that POP's clock
// replay needs no second graph). Each explicit activity says which variants it belongs to; every
// pass names the variant it walks (the first one by default). Chains belong to both.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "wisp/analysis/sparse_rows.hpp"
#include "wisp/error.hpp"
#include "wisp/trace/ids.hpp"

namespace wisp {

using Ticks = std::int64_t;

enum class ActivityKind : std::uint8_t {
  Computation,      // local, outside MPI (user code)
  Mpi,              // local, inside an MPI call, its wait time excluded
  Message,          // send start -> receive completion (point-to-point)
  Rendezvous,       // receive posted -> send completion (the sender waited for the receiver)
  Collective,       // synchronisation vertex -> a member's collective end
  Synchronisation,  // a member's collective begin -> synchronisation vertex (zero duration)
  Launch,           // virtual start -> a rank's first event (its launch offset)
  None,             // no chain activity leaves this vertex
};
std::string_view to_string(ActivityKind kind);
inline bool is_local(ActivityKind k) { return k == ActivityKind::Computation || k == ActivityKind::Mpi; }

// Call path label of launch activities (they belong to no region).
inline constexpr CallpathId kLaunchCallpath = kNone - 1;

using Variant = std::uint8_t;
inline constexpr Variant kFirstVariant = 1, kSecondVariant = 2, kBothVariants = 3;

struct Activity {
  Ticks duration = 0;
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  CallpathId callpath = kNone;
  ActivityKind kind = ActivityKind::Computation;
  // Set by add_activity(): listed before the chain activity leaving `from` / entering `to`
  // (that chain activity was added later).
  bool before_source_chain = false;
  bool before_target_chain = false;
  Variant variants = kBothVariants;  // the graph variants it belongs to
};

struct ActivityGraph {
  std::uint32_t vertex_count = 0;
  Variant variants = kFirstVariant;  // the variants the graph holds (index_graph() may drop the second)
  std::vector<Activity> activities;  // the explicit ones
  // Lanes (the rank a vertex belongs to, kNone if none) by runs: a run starts at `first` and lasts
  // until the next run; vertices before the first run have none. A rank's vertices are one run.
  struct LaneRun {
    std::uint32_t first;
    std::uint32_t lane;
  };
  std::vector<LaneRun> lanes;
  // Chain activities by vertex v (v -> v + 1); kind None where v has none. Empty if no chains.
  // Durations in 32 bits (a PAG's are clock ticks between two events of a rank); the rare one
  // outside [0, kLongChain) is kLongChain there and kept in `long_chains`, sorted by vertex.
  static constexpr std::uint32_t kLongChain = 0xffffffff;
  std::vector<std::uint32_t> chain_duration;
  std::vector<std::pair<std::uint32_t, Ticks>> long_chains;
  // Call paths in 16 bits (kNone and kLaunchCallpath as the two highest); the rare id that does not
  // fit is kWideCallpath there and kept in `wide_callpaths`, sorted by vertex.
  static constexpr std::uint16_t kWideCallpath = 0xfffd;
  std::vector<std::uint16_t> chain_callpath;
  std::vector<std::pair<std::uint32_t, CallpathId>> wide_callpaths;
  std::vector<ActivityKind> chain_kind;

  // Derived by index_graph(): explicit activities by source and by target (CSR), a topological order.
  SparseRows out_rows, in_rows;  // per vertex: its range in `out` / `in`
  std::vector<std::uint32_t> out, in;
  // The topological order as runs of consecutive vertices (a rank's chain, mostly).
  struct OrderRun {
    std::uint32_t first;
    std::uint32_t count;
  };
  std::vector<OrderRun> order;

  std::uint32_t add_vertex(std::uint32_t vertex_lane = kNone) { return add_vertices(1, vertex_lane); }
  // `count` vertices of one lane; returns the first.
  std::uint32_t add_vertices(std::uint32_t count, std::uint32_t vertex_lane = kNone);
  std::uint32_t add_activity(Activity a) {
    a.before_source_chain = !has_chain(a.from);
    a.before_target_chain = a.to == 0 || !has_chain(a.to - 1);
    activities.push_back(a);
    return static_cast<std::uint32_t>(activities.size() - 1);
  }
  // The chain activity v -> v + 1 (at most one per vertex; inline: the PAG adds about one per event).
  void add_chain(std::uint32_t v, Ticks duration, CallpathId callpath, ActivityKind kind) {
    if (v + 1 >= vertex_count) throw Error("activity graph: a chain activity must join two existing vertices");
    if (chain_kind.size() < vertex_count) {
      chain_duration.resize(vertex_count, 0);
      chain_callpath.resize(vertex_count, 0xffff);
      chain_kind.resize(vertex_count, ActivityKind::None);
    }
    const bool short_chain = duration >= 0 && duration < Ticks{kLongChain};
    if (!short_chain || chain_duration[v] == kLongChain) keep_aside(long_chains, v, duration, !short_chain);
    chain_duration[v] = short_chain ? static_cast<std::uint32_t>(duration) : kLongChain;
    const bool narrow = callpath < kWideCallpath || callpath == kNone || callpath == kLaunchCallpath;
    if (!narrow || chain_callpath[v] == kWideCallpath) keep_aside(wide_callpaths, v, callpath, !narrow);
    chain_callpath[v] = callpath == kNone             ? 0xffff
                        : callpath == kLaunchCallpath ? 0xfffe
                        : narrow                      ? static_cast<std::uint16_t>(callpath)
                                                      : kWideCallpath;
    chain_kind[v] = kind;
  }
  Ticks chain_duration_of(std::uint32_t v) const {
    const std::uint32_t d = chain_duration[v];
    return d != kLongChain ? Ticks{d} : aside_value(long_chains, v);
  }
  // The durations of the chains leaving vertices [first, end) summed into `sum`; false (sum
  // untouched) if one of them is kept aside (it may be negative: the caller goes vertex by vertex).
  bool add_chain_durations(std::uint32_t first, std::uint32_t end, Ticks& sum) const {
    std::uint64_t total = 0;
    bool aside = false;
    for (std::uint32_t v = first; v < end; ++v) {
      aside |= chain_duration[v] == kLongChain;
      total += chain_duration[v];
    }
    if (aside) return false;
    sum += static_cast<Ticks>(total);
    return true;
  }
  CallpathId chain_callpath_of(std::uint32_t v) const {
    const std::uint16_t c = chain_callpath[v];
    if (c < kWideCallpath) return c;
    return c == 0xffff ? kNone : c == 0xfffe ? kLaunchCallpath : aside_value(wide_callpaths, v);
  }

  bool has_chain(std::uint32_t v) const { return v < chain_kind.size() && chain_kind[v] != ActivityKind::None; }
  // Word w of the chain bits: bit b set if vertex 64w + b has a chain (0 past the last vertex). What
  // the passes that handle 64 vertices at a time (Kahn's order, the CPM's kept vertices) start from.
  std::uint64_t chain_bits(std::size_t w) const {
    const auto first = static_cast<std::uint32_t>(w * 64);
    const std::uint32_t n = first < vertex_count ? std::min<std::uint32_t>(64, vertex_count - first) : 0;
    std::uint64_t bits = 0;
    for (std::uint32_t b = 0; b < n; ++b) bits |= std::uint64_t{has_chain(first + b)} << b;
    return bits;
  }
  std::uint32_t explicit_count() const { return static_cast<std::uint32_t>(activities.size()); }
  std::uint32_t activity_count() const { return explicit_count() + static_cast<std::uint32_t>(chain_kind.size()); }
  std::uint64_t chain_count() const;
  bool exists(std::uint32_t id) const { return id < explicit_count() || has_chain(id - explicit_count()); }
  Activity chain(std::uint32_t v) const {
    return {chain_duration_of(v), v, v + 1, chain_callpath_of(v), chain_kind[v]};
  }
  Activity activity(std::uint32_t id) const {
    return id < explicit_count() ? activities[id] : chain(id - explicit_count());
  }

  // fn(id, activity) for every activity of `variant` leaving / entering v, in the order they were added.
  template <typename Fn>
  void for_each_outgoing(std::uint32_t v, Fn&& fn, Variant variant = kFirstVariant) const {
    bool chain_done = !has_chain(v);
    const auto [first, end] = out_rows.range(v);
    for (std::uint32_t k = first; k < end; ++k) {
      const Activity& a = activities[out[k]];
      if (!(a.variants & variant)) continue;
      if (!chain_done && !a.before_source_chain) {
        fn(explicit_count() + v, chain(v));
        chain_done = true;
      }
      fn(out[k], a);
    }
    if (!chain_done) fn(explicit_count() + v, chain(v));
  }
  template <typename Fn>
  void for_each_incoming(std::uint32_t v, Fn&& fn, Variant variant = kFirstVariant) const {
    bool chain_done = v == 0 || !has_chain(v - 1);
    const auto [first, end] = in_rows.range(v);
    for (std::uint32_t k = first; k < end; ++k) {
      const Activity& a = activities[in[k]];
      if (!(a.variants & variant)) continue;
      if (!chain_done && !a.before_target_chain) {
        fn(explicit_count() + v - 1, chain(v - 1));
        chain_done = true;
      }
      fn(in[k], a);
    }
    if (!chain_done) fn(explicit_count() + v - 1, chain(v - 1));
  }
  // fn(id, activity) for every activity of `variant`.
  template <typename Fn>
  void for_each_activity(Fn&& fn, Variant variant = kFirstVariant) const {
    for (std::uint32_t k = 0; k < explicit_count(); ++k)
      if (activities[k].variants & variant) fn(k, activities[k]);
    for (std::uint32_t v = 0; v < chain_kind.size(); ++v)
      if (has_chain(v)) fn(explicit_count() + v, chain(v));
  }

  // fn(v) for every vertex in topological order.
  template <typename Fn>
  void for_each_in_order(Fn&& fn) const {
    for (const OrderRun& run : order)
      for (std::uint32_t v = run.first; v < run.first + run.count; ++v) fn(v);
  }

  std::uint32_t lane_of(std::uint32_t v) const;
  bool has_incoming(std::uint32_t v, Variant variant = kFirstVariant) const {
    return (v > 0 && has_chain(v - 1)) || any_explicit(in_rows, in, v, variant);
  }
  bool is_leaf(std::uint32_t v, Variant variant = kFirstVariant) const {
    return !has_chain(v) && !any_explicit(out_rows, out, v, variant);
  }
  bool is_root(std::uint32_t v, Variant variant = kFirstVariant) const {
    return !has_incoming(v, variant) && !is_leaf(v, variant);
  }
  std::uint64_t memory_bytes() const;

 private:
  // Vertex v's entry of a column's values kept aside: set to `value` if `keep`, else removed.
  template <typename T>
  static void keep_aside(std::vector<std::pair<std::uint32_t, T>>& aside, std::uint32_t v, T value, bool keep);
  template <typename T>
  static T aside_value(const std::vector<std::pair<std::uint32_t, T>>& aside, std::uint32_t v);

 public:
 private:
  // Whether row v of an index (out or in) holds an explicit activity of `variant`.
  bool any_explicit(const SparseRows& rows, const std::vector<std::uint32_t>& items, std::uint32_t v,
                    Variant variant) const {
    const auto [first, end] = rows.range(v);
    for (std::uint32_t k = first; k < end; ++k)
      if (activities[items[k]].variants & variant) return true;
    return false;
  }
};

// Builds the CSR indices and a topological order (Kahn, linear time) that serves both variants.
// Activities that close a cycle (only possible between events with equal timestamps in an
// inconsistent trace) are removed from the first variant, non-local ones first; returns how many
// were removed. A cycle that needs the second variant's own activities drops that variant (they are
// removed, `variants` loses it). Throws wisp::Error on a bad vertex id.
std::uint64_t index_graph(ActivityGraph& g);

}  // namespace wisp
