// Benchmark (not a test): what the numbering of a PAG's vertices costs a pass over it. The same
// dense backward longest-path pass (a tail per vertex; explicit activities as 16-byte copies by
// source; the chain to the next event of the rank) over the same graph, its vertices numbered
// rank by rank (as build_pag() does), in time-ordered blocks of a rank's events, and in Kahn's
// order (the order the passes meet them). tests/perf/README.md.
//
//   pag_layout_bench [--steps N | --trace ARCHIVE] [--blocks 64,256,1024] [--repeat R]
//
// Default: a balanced 8x8 halo of 3720 steps (10 M events), generated in memory. Layouts alternate
// within each round; medians of R rounds. Exits non-zero if two layouts give different lengths.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "timing.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;

namespace {

using bench::median;
using bench::numbers;
using bench::seconds_of;

// A graph as the pass reads it: out activities by source in CSR form, the chain to the rank's
// next vertex (kNone: none) and its duration, and the order the pass takes the vertices in.
struct Layout {
  struct Step {
    std::uint32_t to;
    Ticks duration;
  };
  std::vector<std::uint32_t> first_out;  // vertex v's steps: [first_out[v], first_out[v + 1])
  std::vector<Step> out;
  std::vector<std::uint32_t> chain_to;
  std::vector<Ticks> chain_duration;
  std::vector<std::uint32_t> order;  // a topological order
};

// The PAG's graph with vertex v renamed position[v] (the identity: build_pag()'s numbering).
Layout layout(const ActivityGraph& g, const std::vector<std::uint32_t>& position) {
  const std::uint32_t n = g.vertex_count;
  std::vector<std::uint32_t> at(n);
  for (std::uint32_t v = 0; v < n; ++v) at[position[v]] = v;
  Layout l;
  l.first_out.assign(n + 1, 0);
  for (std::uint32_t p = 0; p < n; ++p) l.first_out[p + 1] = l.first_out[p] + g.out_rows.size(at[p]);
  l.out.resize(l.first_out[n]);
  l.chain_to.assign(n, kNone);
  l.chain_duration.assign(n, 0);
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t v = at[p];
    const auto [first, end] = g.out_rows.range(v);
    for (std::uint32_t k = first; k < end; ++k) {
      const Activity& a = g.activities[g.out[k]];
      l.out[l.first_out[p] + (k - first)] = {a.variants & kFirstVariant ? position[a.to] : kNone, a.duration};
    }
    if (g.has_chain(v)) {
      l.chain_to[p] = position[v + 1];
      l.chain_duration[p] = g.chain_duration_of(v);
    }
  }
  l.order.reserve(n);
  g.for_each_in_order([&](std::uint32_t v) { l.order.push_back(position[v]); });
  return l;
}

// The longest path from any vertex, by one backward pass in the layout's order.
Ticks longest_tail(const Layout& l, std::vector<Ticks>& tail) {
  tail.assign(l.chain_to.size(), 0);
  Ticks length = 0;
  for (auto it = l.order.rbegin(); it != l.order.rend(); ++it) {
    const std::uint32_t p = *it;
    Ticks t = l.chain_to[p] != kNone ? tail[l.chain_to[p]] + l.chain_duration[p] : 0;
    for (std::uint32_t k = l.first_out[p]; k < l.first_out[p + 1]; ++k)
      if (l.out[k].to != kNone) t = std::max(t, tail[l.out[k].to] + l.out[k].duration);
    tail[p] = t;
    length = std::max(length, t);
  }
  return length;
}

// Rank by rank: build_pag()'s own numbering.
std::vector<std::uint32_t> identity(std::uint32_t n) {
  std::vector<std::uint32_t> p(n);
  for (std::uint32_t v = 0; v < n; ++v) p[v] = v;
  return p;
}

// In Kahn's order: position = place in index_graph()'s topological order.
std::vector<std::uint32_t> kahn(const ActivityGraph& g) {
  std::vector<std::uint32_t> p(g.vertex_count);
  std::uint32_t next = 0;
  g.for_each_in_order([&](std::uint32_t v) { p[v] = next++; });
  return p;
}

// Blocks of `size` consecutive events of a rank, ordered by their first event's time (ties by
// rank); the virtual start first, synchronisation vertices after all blocks.
std::vector<std::uint32_t> blocks(const Trace& t, const Pag& pag, std::uint32_t size) {
  struct Block {
    double time;
    Rank rank;
    EventIndex first;
  };
  std::vector<Block> order;
  for (Rank r = 0; r < t.rank_count(); ++r)
    for (EventIndex e = 0; e < t.ranks[r].events.size(); e += size) order.push_back({t.ranks[r].events[e].time, r, e});
  std::stable_sort(order.begin(), order.end(), [](const Block& a, const Block& b) { return a.time < b.time; });
  const std::uint32_t n = pag.graph.vertex_count;
  std::vector<std::uint32_t> p(n, kNone);
  std::uint32_t next = 0;
  p[Pag::kStart] = next++;
  for (const Block& b : order) {
    const auto end = std::min<EventIndex>(b.first + size, static_cast<EventIndex>(t.ranks[b.rank].events.size()));
    for (EventIndex e = b.first; e < end; ++e) p[pag.vertex(b.rank, e)] = next++;
  }
  for (std::uint32_t v = 0; v < n; ++v)
    if (p[v] == kNone) p[v] = next++;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t steps = 3720;
  int repeat = 3;
  std::string trace_path;
  std::vector<std::uint32_t> block_sizes{64, 256, 1024};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--steps")
      steps = static_cast<std::uint32_t>(std::atoi(v.c_str()));
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(v.c_str()));
    else if (a == "--trace")
      trace_path = v;
    else if (a == "--blocks")
      block_sizes = numbers(v.c_str(), ',');
  }
  Trace trace;
  if (!trace_path.empty()) {
    trace = read_otf2(trace_path);
  } else {
    gen::HaloOptions o;
    o.dims = {8, 8};
    o.steps = steps;
    trace = gen::generate_halo(o);
  }
  PagOptions po;
  po.vertex_times = false;
  const Pag pag = build_pag(trace, po);
  const ActivityGraph& g = pag.graph;
  std::printf("%s: %zu events, %u vertices, %zu explicit activities, %zu order runs\n",
              trace_path.empty() ? "halo 8x8" : trace_path.c_str(), trace.event_count(), g.vertex_count,
              g.activities.size(), g.order.size());

  struct Case {
    std::string name;
    Layout layout;
    std::vector<double> times;
    Ticks length = 0;
  };
  std::vector<Case> cases;
  cases.push_back({"rank by rank (build_pag)", layout(g, identity(g.vertex_count)), {}, 0});
  for (std::uint32_t size : block_sizes)
    if (size > 0)
      cases.push_back({"time-ordered blocks of " + std::to_string(size), layout(g, blocks(trace, pag, size)), {}, 0});
  std::vector<std::uint32_t> kahn_position;
  const double renumber = seconds_of([&] { kahn_position = kahn(g); });
  Layout in_kahn;
  const double relayout = seconds_of([&] { in_kahn = layout(g, kahn_position); });
  cases.push_back({"Kahn's order", std::move(in_kahn), {}, 0});

  std::vector<Ticks> tail;
  for (int round = 0; round < repeat; ++round)
    for (std::size_t k = 0; k < cases.size(); ++k) {
      Case& c = cases[(k + static_cast<std::size_t>(round)) % cases.size()];  // alternate who runs first
      c.times.push_back(seconds_of([&] { c.length = longest_tail(c.layout, tail); }));
    }
  const double anchor = median(cases.front().times);
  int status = 0;
  for (const Case& c : cases) {
    std::printf("  %-32s %.3f s  (%.2fx of rank by rank)  length %lld\n", c.name.c_str(), median(c.times),
                median(c.times) / anchor, static_cast<long long>(c.length));
    if (c.length != cases.front().length) status = 1;
  }
  std::printf("  Kahn's order from the built graph: positions %.3f s + the pass's columns copied %.3f s\n", renumber,
              relayout);
  if (status != 0) std::fprintf(stderr, "pag_layout_bench: the layouts gave different lengths\n");
  return status;
}
