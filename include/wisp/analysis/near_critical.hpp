// Near-critical paths (paper 001 §3.3): the k longest root-to-leaf paths of an activity graph, in
// order of non-increasing duration, by a best-first search on slack in O(k·e) time and O(k + e)
// memory. Every path is kept implicitly as (parent path, one deviating activity); the rest follows
// the zero-slack successor of each vertex. Query modes of 001 §3: k; nc %; both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "wisp/analysis/cpm.hpp"

namespace wisp {

// Per vertex, its zero-slack outgoing activity (kNone at a leaf). Nearly always the vertex's own
// chain, so a bit per vertex says that, and only the others keep an activity id, found by counting
// set bits (as in sparse_rows.hpp): about 0.5 bytes per vertex instead of 4.
class Successors {
 public:
  Successors() = default;
  // For the vertices from `first_vertex` (a multiple of 64) on.
  explicit Successors(std::uint32_t first_chain_id, std::uint32_t first_vertex = 0);
  // Sets vertex v's successor; every vertex from the first on, in order, once.
  void push(std::uint32_t v, std::uint32_t activity);
  // Sets the successor of vertices [v, end) to their own chains (a chain's inside), a word at a time.
  void push_chains(std::uint32_t v, std::uint32_t end);
  // Takes over the successors of the vertices after these (built apart, e.g. on another thread).
  void append(Successors&& later);
  std::uint32_t operator[](std::uint32_t v) const;
  std::uint32_t size() const { return size_; }
  std::uint64_t memory_bytes() const;

 private:
  std::uint32_t first_chain_ = 0;      // the chain of vertex v is activity first_chain_ + v
  std::uint32_t first_ = 0;            // the first vertex
  std::uint32_t size_ = 0;             // the vertex after the last
  std::vector<std::uint64_t> chain_;   // bit v: v's successor is its chain
  std::vector<std::uint64_t> other_;   // bit v: it is another activity, in others_
  std::vector<std::uint32_t> before_;  // per word of other_: the set bits before it
  std::vector<std::uint32_t> others_;
};

struct NearCriticalQuery {
  std::optional<std::size_t> k;                 // at most k paths (mode 1; mode 3 with nc_percent)
  std::optional<double> nc_percent;             // only paths within nc % of d_cp (mode 2; mode 3 with k)
  std::size_t limit = 10000;                    // safety cap when only nc_percent is given
  static constexpr std::size_t kDefaultK = 10;  // used when neither k nor nc_percent is given
  // Vertices with at least this many activities out (a collective's synchronisation vertex) offer
  // them to the search cheapest first, their costs computed once: the same paths, less work.
  std::uint32_t cost_ordered_from = 16;
  // Distinct paths: a deviation that adds less slack than this is a detour, not another path — it
  // is counted as a variant of the path it leaves (NearCriticalPath::variants) and not searched
  // further. 0: every path (paper 001's search).
  Ticks min_detour = 0;
};

struct NearCriticalPath {
  Ticks duration = 0;
  std::vector<std::pair<CallpathId, Ticks>> callpaths;  // d(i)_j: time per call path, by id
  std::uint32_t parent = kNone;                         // index of the path it deviates from, kNone for a root path
  std::uint32_t deviation = kNone;                      // the deviating activity (the root vertex for a root path)
  std::uint64_t variants = 0;                           // with min_detour: the detours off this path shorter than it
  std::uint32_t part = 0;                               // spread over processes: the part holding `deviation`

  Ticks time_of(CallpathId cp) const;  // 0 if the call path is not on the path
};

struct NearCriticalPaths {
  Ticks critical_length = 0;            // d_cp
  std::vector<NearCriticalPath> paths;  // paths[0] is the critical path; non-increasing duration
  Successors successor;                 // per vertex: its zero-slack outgoing activity (kNone: leaf)
  bool more_available = false;          // further paths within the query's nc % exist
  Ticks nc_bound = 0;                   // the largest slack (d_cp - d_j) a path may have

  // nc % of the last (k-th) path: 100 · (d_cp - d_k) / d_cp.
  double last_nc_percent() const;
};

// With the CPM and its critical path (critical_path_method(g, critical)).
// `threads` > 1: the successor table is built in parts on that many threads (the search is not).
NearCriticalPaths near_critical_paths(const ActivityGraph& g, const Cpm& cpm, const NearCriticalQuery& query,
                                      const std::vector<std::uint32_t>& critical, unsigned threads = 1);
// Over a graph spread over processes (Pag::spread), collective over `group`, with the CPM and the
// critical path's activities in this part (critical_path_method(pag, critical, group)): the same
// paths on every process as of the whole graph, each deviation in its part (NearCriticalPath::part);
// `successor` is this part's. A whole graph: near_critical_paths(pag.graph, ...).
NearCriticalPaths near_critical_paths(const Pag& pag, const Cpm& cpm, const NearCriticalQuery& query,
                                      const std::vector<std::uint32_t>& critical, ProcessGroup& group,
                                      unsigned threads = 1);

// The activities of path `index`, from its root to its leaf (a whole graph).
std::vector<std::uint32_t> path_activities(const ActivityGraph& g, const NearCriticalPaths& paths, std::size_t index);

}  // namespace wisp
