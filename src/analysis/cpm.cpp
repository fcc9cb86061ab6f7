// Critical path method. See cpm.hpp.
#include "wisp/analysis/cpm.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "analysis/ghost_sweep.hpp"
#include "wisp/analysis/chain_sweep.hpp"  // chain_out_of_order()
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/group/pack.hpp"

namespace wisp {

// Word by word: kept = no chain out, or no chain in, or a mark in either index (ChainTails::keeps).
ChainTails kept_vertices(const ActivityGraph& g) {
  ChainTails t;
  const std::size_t words = (g.vertex_count + 63) / 64;
  t.marks.assign(words, 0);
  std::uint64_t previous_chains = 0;  // the word before's chain bits
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t chains = g.chain_bits(w);
    const std::uint32_t n = std::min<std::uint32_t>(64, g.vertex_count - static_cast<std::uint32_t>(w * 64));
    const std::uint64_t chain_in = chains << 1 | previous_chains >> 63;  // bit b: vertex - 1 has a chain
    const std::uint64_t valid = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    std::uint64_t kept = (~chains | ~chain_in | g.in_rows.marks[w] | g.out_rows.marks[w]) & valid;
    if (w == 0) kept |= 1;  // vertex 0 has no chain in
    t.marks[w] = kept;
    previous_chains = chains;
  }
  count_before(t.marks, t.before);
  return t;
}

namespace {

// Rank of an incoming activity by the tie rule of the critical path (critical_path_method()): lower is preferred.
struct Preference {
  int local;               // 0: local activity
  int same_lane;           // 0: from the lane the path is on
  std::uint32_t lane;      // lower lane first (kNone last)
  std::uint32_t position;  // among the vertex's incoming activities
  auto operator<=>(const Preference&) const = default;
};

// The leaf the critical path's walk starts at: of the lowest lane, among those ending last
// (`ends_last(u)`: u's earliest time is the length); `skip(u)`: not a vertex of the whole graph.
template <typename EndsLast, typename Skip>
std::uint32_t walk_start(const ActivityGraph& g, EndsLast&& ends_last, Skip&& skip) {
  std::uint32_t v = kNone;
  for (std::uint32_t u = 0; u < g.vertex_count; ++u) {
    if (!g.is_leaf(u) || !ends_last(u) || skip(u)) continue;
    if (!g.has_incoming(u)) continue;  // isolated vertex: no path ends here
    if (v == kNone || g.lane_of(u) < g.lane_of(v)) v = u;
  }
  return v;
}

// One step of the walk back from critical vertex v, the path on `lane`: the tight incoming
// activity it takes (`tight(act, v)`: act lies on a longest path to v), kNone at a root. Local
// first, then from the path's lane, then from the lowest lane (`from_lane(u)`), then the first listed.
template <typename Tight, typename FromLane>
std::uint32_t step_back(const ActivityGraph& g, std::uint32_t v, std::uint32_t lane, Tight&& tight,
                        FromLane&& from_lane) {
  std::uint32_t best = kNone;
  Preference best_pref{};
  std::uint32_t position = 0;  // incoming activities are listed in the order added
  g.for_each_incoming(v, [&](std::uint32_t a, const Activity& act) {
    ++position;
    if (!tight(act, v)) return;
    const std::uint32_t lane_from = from_lane(act.from);
    const Preference p{is_local(act.kind) ? 0 : 1, lane_from == lane && lane != kNone ? 0 : 1, lane_from, position};
    if (best == kNone || p < best_pref) {
      best = a;
      best_pref = p;
    }
  });
  return best;
}

// The critical path's walk in one graph, from its start to a root; the path root to leaf.
template <typename EndsLast, typename Tight>
std::vector<std::uint32_t> walk_critical(const ActivityGraph& g, EndsLast&& ends_last, Tight&& tight) {
  std::vector<std::uint32_t> path;
  std::uint32_t v = walk_start(g, ends_last, [](std::uint32_t) { return false; });
  if (v == kNone) return path;
  const auto lane_of = [&](std::uint32_t u) { return g.lane_of(u); };
  for (std::uint32_t lane = g.lane_of(v);;) {
    const std::uint32_t best = step_back(g, v, lane, tight, lane_of);
    if (best == kNone) break;
    path.push_back(best);
    v = g.activity(best).from;
    if (g.lane_of(v) != kNone) lane = g.lane_of(v);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

// The first variant's explicit activities as the CPM's passes read them: where each goes and how
// long it takes, in the out index's order (by source), 16 bytes each. A pass then reads them in
// sequence along a run instead of one record per activity in the order they were added (by target
// rank: a cache miss each). The passes keep maxima: a vertex's activities may come in any order.
struct OutStep {
  std::uint32_t to;  // kNone: not in the first variant
  Ticks duration;
};

std::vector<OutStep> out_steps(const ActivityGraph& g) {
  std::vector<OutStep> steps(g.out.size());
  for (std::size_t k = 0; k < g.out.size(); ++k) {
    const Activity& a = g.activities[g.out[k]];
    steps[k] = {a.variants & kFirstVariant ? a.to : kNone, a.duration};
  }
  return steps;
}

// fn(to, duration) for every explicit activity of the first variant leaving v.
template <typename Fn>
void for_each_step(const ActivityGraph& g, const std::vector<OutStep>& steps, std::uint32_t v, Fn&& fn) {
  if (!g.out_rows.has_items(v)) return;
  const std::uint32_t row = g.out_rows.index(v);
  for (std::uint32_t k = g.out_rows.begin[row]; k < g.out_rows.begin[row + 1]; ++k)
    if (steps[k].to != kNone) fn(steps[k].to, steps[k].duration);
}

// Tails in reverse topological order, run by run. A vertex that is not kept has one activity in
// and one out, its chains: index_graph() orders it right after v - 1, in the same run, so its tail
// is carried along the run (the tail of v + 1 plus its chain) instead of stored.
Ticks fill_tails(const ActivityGraph& g, const std::vector<OutStep>& steps, ChainTails& t) {
  Ticks length = 0;
  for (auto run = g.order.rbegin(); run != g.order.rend(); ++run) {
    const std::uint32_t last = run->first + run->count - 1;
    Ticks carried = 0;  // the tail of v + 1 (inside the run)
    for (std::uint32_t v = last;;) {
      // The vertices not kept down to the previous kept one u: a gap inside a chain.
      const std::uint32_t u = t.last_kept(run->first, v);
      const std::uint32_t gap = u == kNone ? run->first : u + 1;
      if (gap <= v) {
        if (v == last) {  // v + 1 comes later: it has explicit activities in, so it is kept
          if (!t.kept(v + 1)) throw chain_out_of_order();
          carried = t.tail[t.slot(v + 1)];
        }
        if (g.add_chain_durations(gap, v + 1, carried)) {  // durations >= 0: the largest at the gap's start
          length = std::max(length, carried);
        } else {
          for (std::uint32_t x = v + 1; x-- > gap;) {
            carried += g.chain_duration_of(x);
            length = std::max(length, carried);
          }
        }
      }
      if (u == kNone) break;
      v = u;
      Ticks tail = 0;
      if (g.has_chain(v)) {
        if (v != last)
          tail = std::max(tail, carried + g.chain_duration_of(v));
        else if (t.kept(v + 1))
          tail = std::max(tail, t.tail[t.slot(v + 1)] + g.chain_duration_of(v));
        else
          throw chain_out_of_order();
      }
      for_each_step(g, steps, v, [&](std::uint32_t w, Ticks d) {  // w has explicit activities in: kept
        if (!t.kept(w)) throw chain_out_of_order();
        tail = std::max(tail, t.tail[t.slot(w)] + d);
      });
      t.tail[t.slot(v)] = tail;
      carried = tail;
      length = std::max(length, tail);
      if (v == run->first) break;
      --v;
    }
  }
  return length;
}

// Zero total slack (earliest + tail = length) per vertex, without earliest times: a vertex has it
// iff a root whose tail is the length reaches it along activities a = (u -> w) with tail(u) =
// d(a) + tail(w). Each such step keeps earliest + tail at the length (earliest(w) >= earliest(u) +
// d(a) and earliest + tail never exceeds it), and a longest path from a root to a zero-slack vertex
// takes only such steps. So the walk visits the critical paths' union, not the whole graph (in a
// real trace about one rank's share of it). Inside a chain (a vertex that is not kept) the one
// activity out always is such a step. Gives up (false) after `budget` vertices.
bool zero_slack_by_walk(const ActivityGraph& g, const std::vector<OutStep>& steps, const ChainTails& t, Ticks length,
                        std::uint64_t budget, std::vector<bool>& zero) {
  zero.assign(g.vertex_count, false);
  std::vector<std::uint32_t> todo;
  std::uint64_t visited = 0;
  const auto reach = [&](std::uint32_t w) {
    for (; !t.kept(w) && !zero[w]; ++w, ++visited) zero[w] = true;  // along the chain to the next kept vertex
    if (zero[w]) return;
    zero[w] = true;
    ++visited;
    todo.push_back(w);
  };
  for (std::size_t word = 0; word < t.marks.size(); ++word)  // roots have no chain in: they are kept
    for (std::uint64_t bits = t.marks[word]; bits != 0; bits &= bits - 1) {
      const auto v = static_cast<std::uint32_t>(word * 64 + std::countr_zero(bits));
      if (!g.has_incoming(v) && t.tail[t.slot(v)] == length) reach(v);
    }
  while (!todo.empty()) {
    if (visited > budget) return false;
    const std::uint32_t u = todo.back();  // kept
    todo.pop_back();
    const Ticks tail = t.tail[t.slot(u)];
    const auto step = [&](std::uint32_t w, Ticks d) {
      if (!zero[w] && tail == d + t.tail_at(g, w)) reach(w);
    };
    if (g.has_chain(u)) step(u + 1, g.chain_duration_of(u));
    for_each_step(g, steps, u, step);
  }
  return true;
}

// The same marks from one forward sweep run by run (as fill_tails: a vertex that is not kept follows
// v - 1 in its run, its earliest time is carried). Inside a chain (between kept vertices a and b)
// earliest + tail is the same for every vertex, so a gap of vertices that are not kept is marked at
// once when b is met: arrival at b + tail(b). For graphs where most vertices are critical (a
// perfectly balanced generated run), where the walk would visit them all in no order.
std::vector<bool> zero_slack_by_sweep(const ActivityGraph& g, const std::vector<OutStep>& steps, const ChainTails& t,
                                      Ticks length) {
  std::vector<bool> zero(g.vertex_count, false);
  std::vector<Ticks> stored(g.in_rows.nonempty_count(), 0);  // at vertices with explicit activities in
  const auto relax = [](Ticks& to, Ticks value) { to = std::max(to, value); };
  for (const ActivityGraph::OrderRun& run : g.order) {
    const std::uint32_t last = run.first + run.count - 1;
    Ticks carried = 0;          // arrival at v along the chain from v - 1, if v - 1 is in this run
    std::uint32_t gap = kNone;  // the first of the vertices not kept right before v
    for (std::uint32_t v = run.first; v <= last; ++v) {
      if (!t.kept(v)) {  // a gap inside a chain, up to the next kept vertex (or the run's end)
        if (v == run.first) throw chain_out_of_order();
        gap = v;
        const std::uint32_t end = t.first_kept(v, last + 1);
        if (!g.add_chain_durations(v, end, carried))
          for (std::uint32_t x = v; x < end; ++x) carried += g.chain_duration_of(x);
        v = end - 1;
        continue;
      }
      const bool chain_in = v != run.first && g.has_chain(v - 1);
      Ticks earliest = chain_in ? carried : 0;
      if (g.in_rows.has_items(v))
        earliest = chain_in ? std::max(earliest, stored[g.in_rows.index(v)]) : stored[g.in_rows.index(v)];
      else if (!chain_in && v > 0 && g.has_chain(v - 1))
        throw chain_out_of_order();
      const Ticks tail = t.tail[t.slot(v)];
      if (gap != kNone) {
        std::fill(zero.begin() + gap, zero.begin() + v, carried + tail == length);
        gap = kNone;
      }
      zero[v] = earliest + tail == length;
      if (g.has_chain(v)) {
        if (v != last)
          carried = earliest + g.chain_duration_of(v);  // to the next vertex of the run
        else if (g.in_rows.has_items(v + 1))
          relax(stored[g.in_rows.index(v + 1)], earliest + g.chain_duration_of(v));
        else
          throw chain_out_of_order();
      }
      for_each_step(g, steps, v, [&](std::uint32_t w, Ticks d) {
        if (!g.in_rows.has_items(w)) throw chain_out_of_order();
        relax(stored[g.in_rows.index(w)], earliest + d);
      });
    }
    if (gap != kNone) {  // the run ends inside a chain: it goes on at last + 1, later
      if (!g.in_rows.has_items(last + 1)) throw chain_out_of_order();
      std::fill(zero.begin() + gap, zero.begin() + last + 1, carried + t.tail[t.slot(last + 1)] == length);
      relax(stored[g.in_rows.index(last + 1)], carried);
    }
  }
  return zero;
}

std::vector<bool> zero_slack(const ActivityGraph& g, const std::vector<OutStep>& steps, const ChainTails& t,
                             Ticks length, double walk_share) {
  std::vector<bool> zero;
  const auto budget = static_cast<std::uint64_t>(walk_share * g.vertex_count);
  if (zero_slack_by_walk(g, steps, t, length, budget, zero)) return zero;
  return zero_slack_by_sweep(g, steps, t, length);
}

}  // namespace

// On a critical vertex v (earliest = latest), an incoming activity from u is tight iff u is
// critical too and latest(u) + d = latest(v): earliest(u) <= latest(u) <= latest(v) - d always.
// A vertex that is not kept has one incoming activity, its chain, tight by definition.
Cpm critical_path_method(const ActivityGraph& g, std::vector<std::uint32_t>& critical, double walk_share) {
  Cpm cpm;
  cpm.tails = kept_vertices(g);
  cpm.tails.tail.assign(cpm.tails.kept_count(), 0);
  std::vector<bool> zero;
  {
    const std::vector<OutStep> steps = out_steps(g);
    cpm.length = fill_tails(g, steps, cpm.tails);
    zero = zero_slack(g, steps, cpm.tails, cpm.length, walk_share);
  }
  critical = walk_critical(
      g, [&](std::uint32_t u) { return zero[u] && cpm.latest_at(g, u) == cpm.length; },
      [&](const Activity& act, std::uint32_t v) {
        if (!cpm.tails.kept(v)) return true;
        return zero[act.from] && cpm.latest_at(g, act.from) + act.duration == cpm.latest_at(g, v);
      });
  return cpm;
}

// ---- spread over processes: the parts of one graph, glued at their ghosts (pag.hpp) ----

namespace {

// The tails of this process's part (ChainTails' kept vertices) from a backward sweep over every
// part; returns the length (the longest tail anywhere), nullopt if the dependencies form a cycle.
std::optional<Ticks> spread_tails(const Pag& pag, ProcessGroup& group, ChainTails& t) {
  Ticks longest = 0;
  const auto relax = [](Ticks& into, Ticks from, const Activity& a) { into = std::max(into, from + a.duration); };
  const auto visit = [&](std::uint32_t v, Ticks tail) {
    if (t.kept(v)) t.tail[t.slot(v)] = tail;
    longest = std::max(longest, tail);
  };
  // Back along a chain's inside (from hi down to lo): the tails only grow there, unless a duration
  // is kept aside (it may be negative), so the longest is met at a visited vertex.
  const auto cross = [&](Ticks& carried, std::uint32_t lo, std::uint32_t hi) {
    if (pag.graph.add_chain_durations(lo, hi, carried)) return;
    for (std::uint32_t x = hi; x-- > lo;) {
      longest = std::max(longest, carried);
      carried += pag.graph.chain_duration_of(x);
    }
  };
  const bool acyclic = GhostSweep<Ticks, Sweep::Backward>(pag, kFirstVariant, group).run(relax, visit, &t, cross);
  if (!acyclic) return std::nullopt;
  for (const std::string& part : all_gather(group, packed(longest)))
    longest = std::max(longest, Unpacker(part).get<Ticks>());
  return longest;
}

// Zero total slack per vertex of this part, from a forward sweep (earliest times). A chain's inside
// (vertices that are not kept) has one earliest + tail: the arrival at the kept vertex after it
// along the chain plus that vertex's tail; a lane's vertices are met in order, a gap at once.
std::vector<bool> spread_zero_slack(const Pag& pag, ProcessGroup& group, const ChainTails& t, Ticks length) {
  const ActivityGraph& g = pag.graph;
  std::vector<bool> zero(g.vertex_count, false);
  std::uint32_t gap = kNone;  // the first vertex of the gap being met
  const auto relax = [](Ticks& into, Ticks from, const Activity& a) { into = std::max(into, from + a.duration); };
  const auto visit = [&](std::uint32_t v, Ticks earliest) {
    if (t.kept(v)) {
      zero[v] = earliest + t.tail[t.slot(v)] == length;
      return;
    }
    if (gap == kNone) gap = v;
    if (!t.kept(v + 1)) return;
    const bool critical = earliest + g.chain_duration_of(v) + t.tail[t.slot(v + 1)] == length;
    std::fill(zero.begin() + gap, zero.begin() + v + 1, critical);
    gap = kNone;
  };
  const auto cross = [&](Ticks& carried, std::uint32_t lo, std::uint32_t hi) {  // the gap's first vertices
    if (gap == kNone) gap = lo;
    if (!g.add_chain_durations(lo, hi, carried))
      for (std::uint32_t x = lo; x < hi; ++x) carried += g.chain_duration_of(x);
  };
  GhostSweep<Ticks>(pag, kFirstVariant, group).run(relax, visit, &t, cross);
  return zero;
}

// Where the critical path's walk goes on at another process: the export ghost there (its index,
// PagGhost::peer of the import ghost the walk crossed here), the lane the path is on; or, done,
// nowhere.
struct WalkToken {
  std::uint32_t ghost = 0;
  std::uint32_t lane = kNone;
  std::uint8_t done = 0;
};

// The critical path's walk over the parts: each process walks its own and hands the walk on at
// an import ghost to the process of the activity's source, which goes on from the export ghost of
// the same key; the process that reaches a root tells the others. Here: the activities of the path
// that lie in this part (the stand-ins into export ghosts included), root to leaf.
template <typename EndsLast, typename Tight>
std::vector<std::uint32_t> walk_critical(const Pag& pag, ProcessGroup& group, EndsLast&& ends_last, Tight&& tight) {
  const ActivityGraph& g = pag.graph;
  const auto ghost = [&](std::uint32_t v) { return pag.ghost_at(v); };
  const auto from_lane = [&](std::uint32_t u) {  // an import stands for its source, of that lane
    const PagGhost* gh = ghost(u);
    return gh != nullptr ? gh->lane : g.lane_of(u);
  };
  // The start: of the lowest lane, among the processes' own.
  const std::uint32_t start = walk_start(g, ends_last, [&](std::uint32_t u) { return ghost(u) != nullptr; });
  int holder = -1;
  std::uint32_t lane = kNone;
  struct Start {
    std::uint32_t found, lane;
  };
  const std::vector<std::string> starts = all_gather(group, packed(Start{start != kNone, g.lane_of(start)}));
  for (std::size_t p = 0; p < starts.size(); ++p) {
    const auto s = Unpacker(starts[p]).get<Start>();
    if (s.found && (holder < 0 || s.lane < lane)) holder = static_cast<int>(p), lane = s.lane;
  }
  std::vector<std::uint32_t> path;
  std::uint32_t v = holder == group.process() ? start : kNone;
  while (holder >= 0) {
    if (v == kNone) {  // the walk is elsewhere
      const auto arrived = await_walk<WalkToken>(group, pag, false);
      if (!arrived) break;
      v = arrived->second;
      lane = arrived->first.lane;
    }
    const std::uint32_t best = step_back(g, v, lane, tight, from_lane);
    if (best == kNone) {  // a root: the path is complete
      end_walk<WalkToken>(group);
      break;
    }
    path.push_back(best);
    v = g.activity(best).from;
    if (const PagGhost* gh = ghost(v); gh != nullptr && gh->import) {
      group.send(gh->process, packed(WalkToken{gh->peer, lane, 0}));
      v = kNone;
    } else if (g.lane_of(v) != kNone) {
      lane = g.lane_of(v);
    }
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

std::optional<Cpm> critical_path_method(const Pag& pag, std::vector<std::uint32_t>& critical, ProcessGroup& group) {
  if (!pag.spread) return critical_path_method(pag.graph, critical);
  const ActivityGraph& g = pag.graph;
  Cpm cpm;
  cpm.tails = kept_vertices(g);
  cpm.tails.tail.assign(cpm.tails.kept_count(), 0);
  const std::optional<Ticks> length = spread_tails(pag, group, cpm.tails);
  if (!length) return std::nullopt;
  cpm.length = *length;
  const std::vector<bool> zero = spread_zero_slack(pag, group, cpm.tails, cpm.length);
  critical = walk_critical(
      pag, group, [&](std::uint32_t u) { return zero[u] && cpm.latest_at(g, u) == cpm.length; },
      [&](const Activity& act, std::uint32_t v) {
        if (!cpm.tails.kept(v)) return true;
        return zero[act.from] && cpm.latest_at(g, act.from) + act.duration == cpm.latest_at(g, v);
      });
  return cpm;
}

}  // namespace wisp
