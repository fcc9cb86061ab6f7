// The critical path method (paper 001 §2.3) on an activity graph: the longest path to the end from
// every vertex (its latest time is the length minus that), kept sparse, and the one critical path
// wisp reports when several are equally long; on one graph or on its parts spread over processes.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "wisp/analysis/activity_graph.hpp"

namespace wisp {

struct Pag;
class ProcessGroup;

// Longest paths to a leaf ("tails") kept only at the vertices where a chain starts or ends or
// meets an explicit activity (about one in four in a PAG): inside a chain a vertex has one
// activity in and one out, so its tail is the next kept vertex's plus the chain durations between.
struct ChainTails {
  std::vector<std::uint64_t> marks;   // bit v % 64 of word v / 64: v is kept
  std::vector<std::uint32_t> before;  // per word: the kept vertices before it
  std::vector<Ticks> tail;            // per kept vertex

  static bool keeps(const ActivityGraph& g, std::uint32_t v) {
    return !g.has_chain(v) || v == 0 || !g.has_chain(v - 1) || g.in_rows.index(v) != SparseRows::kEmpty ||
           g.out_rows.index(v) != SparseRows::kEmpty;
  }
  bool kept(std::uint32_t v) const { return marks[v >> 6] >> (v & 63) & 1; }
  std::uint32_t slot(std::uint32_t v) const {
    const std::uint64_t word = marks[v >> 6];
    return before[v >> 6] + static_cast<std::uint32_t>(std::popcount(word & ((std::uint64_t{1} << (v & 63)) - 1)));
  }
  // Any vertex's tail: O(1) at a kept vertex, else along its chain to the next kept one.
  Ticks tail_at(const ActivityGraph& g, std::uint32_t v) const {
    Ticks along = 0;
    for (; !kept(v); ++v) along += g.chain_duration_of(v);
    return tail[slot(v)] + along;
  }
  // The last kept vertex in [first, v], kNone if none; the first kept one in [v, end), end if none:
  // a word of marks at a time, so that the passes cross a chain's inside without a step per vertex.
  std::uint32_t last_kept(std::uint32_t first, std::uint32_t v) const {
    std::size_t w = v >> 6;
    std::uint64_t bits = marks[w] & (~std::uint64_t{0} >> (63 - (v & 63)));
    while (bits == 0) {
      if (w == 0 || w * 64 <= first) return kNone;
      bits = marks[--w];
    }
    const auto u = static_cast<std::uint32_t>(w * 64 + 63 - std::countl_zero(bits));
    return u >= first ? u : kNone;
  }
  std::uint32_t first_kept(std::uint32_t v, std::uint32_t end) const {
    std::size_t w = v >> 6;
    std::uint64_t bits = marks[w] & (~std::uint64_t{0} << (v & 63));
    while (bits == 0) {
      if ((w + 1) * 64 >= end) return end;
      bits = marks[++w];
    }
    const auto u = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
    return u < end ? u : end;
  }
  bool empty() const { return marks.empty(); }
  std::uint32_t kept_count() const {
    return marks.empty() ? 0 : before.back() + static_cast<std::uint32_t>(std::popcount(marks.back()));
  }
};

// The vertices ChainTails keeps (marks and counts; no tails yet): built word by word from the chain
// bits and the index marks. The others lie inside a chain: one activity in, one out, both chains.
ChainTails kept_vertices(const ActivityGraph& g);

struct Cpm {
  Ticks length = 0;  // d_cp, the length of the longest path
  ChainTails tails;  // per kept vertex: the longest path from it to a leaf

  // The latest time of v without delaying the end.
  Ticks latest_at(const ActivityGraph& g, std::uint32_t v) const { return length - tails.tail_at(g, v); }
};

// Needs index_graph(g). The length, the tails (about 2 bytes per vertex) and in `critical` the
// critical path wisp reports, as activity ids from a root to a leaf. Among equally long paths it is
// the one a backward walk finds (like Scalasca's backward replay): start at the leaf of the lowest
// lane that ends last; at each vertex take a tight incoming activity, preferring the local one (stay
// on the rank), then one from the lane the path is on, then the lowest lane, then the first listed.
// The backward pass gives the tails (the length is the longest); then the vertices whose
// earliest time plus tail is the length, those the critical path may use, are marked by a walk from
// the roots over the critical paths' union (in a real trace about 1/ranks of the graph), or, once
// the walk has visited `walk_share` of the vertices (a perfectly balanced run: nearly all are
// critical), by a forward sweep over all of them. Both give the same marks (tests: 0 and 1).
Cpm critical_path_method(const ActivityGraph& g, std::vector<std::uint32_t>& critical, double walk_share = 1.0 / 16);

// The same over a graph spread over processes (Pag::spread: this process's part, glued to the
// others' at its ghosts), collective over `group`: the tails of this part's vertices, the whole
// graph's length, and in `critical` the activities of the whole graph's critical path that lie
// in this part (a crossing's stand-in into an export ghost included), root to leaf. A whole graph:
// critical_path_method(pag.graph, critical). nullopt on every process if the dependencies form a cycle.
std::optional<Cpm> critical_path_method(const Pag& pag, std::vector<std::uint32_t>& critical, ProcessGroup& group);

}  // namespace wisp
