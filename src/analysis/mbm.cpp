// Maximum Benefit Metric. See mbm.hpp.
#include "wisp/analysis/mbm.hpp"

#include "analysis/ghost_sweep.hpp"
#include "wisp/analysis/chain_sweep.hpp"
#include "wisp/group/pack.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <future>
#include <set>
#include <span>

namespace wisp {

Ticks mbm_k(const NearCriticalPaths& paths, CallpathId callpath, std::size_t k) {
  const std::size_t n = std::min(k, paths.paths.size());
  if (n == 0) return 0;
  Ticks best = paths.paths[0].time_of(callpath);
  for (std::size_t j = 1; j < n; ++j) {
    const NearCriticalPath& p = paths.paths[j];
    best = std::min(best, p.time_of(callpath) + paths.critical_length - p.duration);
  }
  return best;
}

namespace {

// MBM_all of up to kLanes call paths in one pass over the graph: lane j zeroes callpaths[j].
// One pass reads every activity once for all lanes, which is what the passes cost; memory
// kLanes · 8 bytes per vertex with explicit incoming activities, in `stored`, which the passes
// share. All kLanes lanes are computed (unused ones zero no call path), so that the inner loops
// have a fixed length.
constexpr std::size_t kLanes = 4;
using Lanes = std::array<Ticks, kLanes>;
constexpr CallpathId kUnusedLane = kNone - 2;  // no activity's call path

// An explicit activity as the passes read it, in the out index's order (by source): the records
// themselves lie in the order they were added, one cache miss each per pass.
struct OutEdge {
  std::uint32_t to_slot;  // its target's slot (by_order); SparseRows::kEmpty: not in the first variant
  CallpathId callpath;
  Ticks duration;
};

// What a pass needs besides its call paths, computed once for all passes.
struct PassInput {
  const ActivityGraph& g;
  Ticks critical_length;
  ChainTails kept;           // marks only: the vertices that are not inside a chain
  bool non_negative = true;  // every duration >= 0: the longest value ends at a kept vertex
  std::vector<OutEdge> out;  // per item of g.out (with non_negative only)
  // Per non-empty row of in_rows: the slot of that vertex's lanes, in the order the passes meet
  // the vertices (with non_negative only). A pass reads them in sequence and writes near where it
  // reads (an activity's target comes soon after its source), instead of across the ranks' rows.
  std::vector<std::uint32_t> by_order;
};

// by_order: the k-th vertex with explicit activities in that the order meets gets slot k.
std::vector<std::uint32_t> slots_by_order(const ActivityGraph& g) {
  std::vector<std::uint32_t> slot(g.in_rows.nonempty_count(), SparseRows::kEmpty);
  std::uint32_t next = 0;
  for (const ActivityGraph::OrderRun& run : g.order) {
    const std::uint32_t end = run.first + run.count;
    for (std::uint32_t w = run.first >> 6; w <= (end - 1) >> 6; ++w) {
      std::uint64_t bits = g.in_rows.marks[w];
      if (w == run.first >> 6) bits &= ~std::uint64_t{0} << (run.first & 63);
      if (w == (end - 1) >> 6 && (end & 63) != 0) bits &= (std::uint64_t{1} << (end & 63)) - 1;
      for (; bits != 0; bits &= bits - 1)
        slot[g.in_rows.index(static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits)))] = next++;
    }
  }
  return slot;
}

PassInput pass_input(const ActivityGraph& g, const Cpm& cpm) {
  PassInput in{g, cpm.length, kept_vertices(g), true, {}, {}};
  for (const auto& [v, d] : g.long_chains) in.non_negative = in.non_negative && d >= 0;
  for (const Activity& a : g.activities) in.non_negative = in.non_negative && a.duration >= 0;
  if (!in.non_negative) return in;
  in.by_order = slots_by_order(g);
  in.out.reserve(g.out.size());
  for (std::uint32_t id : g.out) {
    const Activity& a = g.activities[id];
    in.out.push_back(
        {a.variants & kFirstVariant ? in.by_order[g.in_rows.index(a.to)] : SparseRows::kEmpty, a.callpath, a.duration});
  }
  return in;
}

// A sweep's relax and visit for N lanes: lane j's activities of call path zeroed[j] last 0.
template <std::size_t N>
struct ZeroLanes {
  const std::array<CallpathId, N>& zeroed;
  std::array<Ticks, N>& length;
  void operator()(std::array<Ticks, N>& f, const std::array<Ticks, N>& e, const Activity& act) const {
    for (std::size_t j = 0; j < N; ++j) f[j] = std::max(f[j], e[j] + (act.callpath == zeroed[j] ? 0 : act.duration));
  }
  void operator()(std::uint32_t, const std::array<Ticks, N>& e) const {
    for (std::size_t j = 0; j < N; ++j) length[j] = std::max(length[j], e[j]);
  }
};

template <std::size_t N = kLanes>
std::array<CallpathId, N> zeroed_lanes(std::span<const CallpathId> callpaths) {
  std::array<CallpathId, N> zeroed;
  for (std::size_t j = 0; j < N; ++j) zeroed[j] = j < callpaths.size() ? callpaths[j] : kUnusedLane;
  return zeroed;
}

// The generic sweep (chain_sweep.hpp): for graphs with negative durations.
void lanes_by_chain_sweep(const ActivityGraph& g, const std::array<CallpathId, kLanes>& zeroed,
                          std::vector<Lanes>& stored, Lanes& length) {
  const ZeroLanes<kLanes> lanes{zeroed, length};
  chain_sweep(g, kFirstVariant, stored, lanes, lanes);
}

// The same run by run, as the CPM's sweeps: inside a chain (a vertex that is not kept) every lane
// adds the chain's duration except the lane that zeroes its call path, so a gap is summed once
// (its total and, per lane, what that lane leaves out) instead of lane by lane per vertex. With
// durations >= 0 values only grow along activities: the longest is met at a kept vertex (a leaf).
void lanes_by_runs(const PassInput& in, const std::array<CallpathId, kLanes>& zeroed, std::vector<Lanes>& stored,
                   Lanes& length) {
  const ActivityGraph& g = in.g;
  const ChainTails& t = in.kept;
  const auto lane_of = [&](CallpathId cp) {  // kLanes: none
    std::size_t lane = kLanes;
    for (std::size_t j = 0; j < kLanes; ++j)
      if (zeroed[j] == cp) lane = j;
    return lane;
  };
  // Lane of a chain's 16-bit call path; a wide one (kWideCallpath) is looked up.
  std::array<std::uint8_t, 0x10000> lane_of_chain;
  lane_of_chain.fill(kLanes);
  for (std::uint32_t raw = 0; raw < 0x10000; ++raw) {
    const CallpathId cp = raw == 0xffff ? kNone : raw == 0xfffe ? kLaunchCallpath : raw;
    if (raw != ActivityGraph::kWideCallpath) lane_of_chain[raw] = static_cast<std::uint8_t>(lane_of(cp));
  }
  const auto chain_lane = [&](std::uint32_t v) -> std::size_t {
    const std::uint16_t raw = g.chain_callpath[v];
    return raw == ActivityGraph::kWideCallpath ? lane_of(g.chain_callpath_of(v)) : lane_of_chain[raw];
  };
  const auto add = [&](Lanes& to, const Lanes& from, Ticks d, std::size_t lane) {
    for (std::size_t j = 0; j < kLanes; ++j) to[j] = from[j] + d;
    if (lane < kLanes) to[lane] = from[lane];
  };
  const auto relax = [&](Lanes& to, const Lanes& from, Ticks d, std::size_t lane) {
    Lanes x;
    add(x, from, d, lane);
    for (std::size_t j = 0; j < kLanes; ++j) to[j] = std::max(to[j], x[j]);
  };
  stored.assign(g.in_rows.nonempty_count(), Lanes{});
  std::uint32_t next_slot = 0;  // the next vertex with explicit activities in has this slot
  const auto slot = [&](std::uint32_t v) { return in.by_order[g.in_rows.index(v)]; };
  for (const ActivityGraph::OrderRun& run : g.order) {
    const std::uint32_t last = run.first + run.count - 1;
    Lanes carried{};                               // arrival at v along the chain from v - 1, if v - 1 is in this run
    Ticks gap_total = 0;                           // a gap of vertices not kept right before v: its durations,
    std::array<Ticks, kLanes + 1> gap_left_out{};  // and per lane what it leaves out
    bool in_gap = false;
    const auto close_gap = [&] {
      for (std::size_t j = 0; j < kLanes; ++j) carried[j] += gap_total - gap_left_out[j];
      gap_total = 0;
      gap_left_out.fill(0);
      in_gap = false;
    };
    for (std::uint32_t v = run.first; v <= last; ++v) {
      if (!t.kept(v)) {
        if (v == run.first) throw chain_out_of_order();
        const Ticks d = g.chain_duration_of(v);
        gap_total += d;
        gap_left_out[chain_lane(v)] += d;
        in_gap = true;
        continue;
      }
      if (in_gap) close_gap();
      const bool chain_in = v != run.first && g.has_chain(v - 1);
      Lanes value = chain_in ? carried : Lanes{};
      if (g.in_rows.has_items(v)) {
        const Lanes& s = stored[next_slot++];
        for (std::size_t j = 0; j < kLanes; ++j) value[j] = chain_in ? std::max(value[j], s[j]) : s[j];
      } else if (!chain_in && v > 0 && g.has_chain(v - 1)) {
        throw chain_out_of_order();
      }
      for (std::size_t j = 0; j < kLanes; ++j) length[j] = std::max(length[j], value[j]);
      if (g.out_rows.has_items(v)) {  // its explicit activities (the order among them is no matter: max)
        const std::uint32_t row = g.out_rows.index(v);
        for (std::uint32_t k = g.out_rows.begin[row]; k < g.out_rows.begin[row + 1]; ++k) {
          const OutEdge& e = in.out[k];
          if (e.to_slot != SparseRows::kEmpty) relax(stored[e.to_slot], value, e.duration, lane_of(e.callpath));
        }
      }
      if (!g.has_chain(v)) continue;
      if (v != last)  // its chain, to the next vertex of the run
        add(carried, value, g.chain_duration_of(v), chain_lane(v));
      else if (g.in_rows.has_items(v + 1))
        relax(stored[slot(v + 1)], value, g.chain_duration_of(v), chain_lane(v));
      else
        throw chain_out_of_order();
    }
    if (in_gap) {  // the run ends inside a chain: it goes on at last + 1, later
      if (!g.in_rows.has_items(last + 1)) throw chain_out_of_order();
      close_gap();
      Lanes& s = stored[slot(last + 1)];
      for (std::size_t j = 0; j < kLanes; ++j) s[j] = std::max(s[j], carried[j]);
    }
  }
  if (next_slot != stored.size()) throw Error("MBM: the order met the vertices with activities in out of their slots");
}

void mbm_all_lanes(const PassInput& in, std::span<const CallpathId> callpaths, std::vector<Lanes>& stored,
                   std::span<Ticks> out) {
  const std::array<CallpathId, kLanes> zeroed = zeroed_lanes<kLanes>(callpaths);
  Lanes length{};
  if (in.non_negative)
    lanes_by_runs(in, zeroed, stored, length);
  else
    lanes_by_chain_sweep(in.g, zeroed, stored, length);
  for (std::size_t j = 0; j < callpaths.size(); ++j) out[j] = in.critical_length - length[j];
}

}  // namespace

std::vector<MbmRow> benefit_rows(const NearCriticalPaths& paths,
                                 const std::function<std::vector<Ticks>(const std::vector<CallpathId>&)>& mbm_all_of) {
  std::set<CallpathId> seen;
  for (const NearCriticalPath& p : paths.paths)
    for (const auto& [cp, d] : p.callpaths)
      if (d > 0) seen.insert(cp);
  std::vector<MbmRow> rows;
  std::vector<CallpathId> to_zero;  // 0 <= MBM_all <= MBM_k: only those with MBM_k > 0
  for (CallpathId cp : seen) {
    MbmRow row;
    row.callpath = cp;
    row.critical_path = paths.paths.empty() ? 0 : paths.paths[0].time_of(cp);
    row.mbm_k = mbm_k(paths, cp, paths.paths.size());
    if (row.mbm_k > 0) to_zero.push_back(cp);
    rows.push_back(row);
  }
  const std::vector<Ticks> all = mbm_all_of(to_zero);
  for (MbmRow& row : rows) {
    const auto it = std::find(to_zero.begin(), to_zero.end(), row.callpath);
    if (it != to_zero.end()) row.mbm_all = all[static_cast<std::size_t>(it - to_zero.begin())];
  }
  std::sort(rows.begin(), rows.end(), [](const MbmRow& a, const MbmRow& b) {
    if (a.critical_path != b.critical_path) return a.critical_path > b.critical_path;
    if (a.mbm_all != b.mbm_all) return a.mbm_all > b.mbm_all;
    return a.callpath < b.callpath;
  });
  return rows;
}

std::vector<Ticks> mbm_all_of(const ActivityGraph& g, const Cpm& cpm, const std::vector<CallpathId>& callpaths,
                              unsigned threads) {
  std::vector<Ticks> all(callpaths.size());
  if (callpaths.empty()) return all;
  const PassInput input = pass_input(g, cpm);
  const std::size_t passes = (callpaths.size() + kLanes - 1) / kLanes;
  // Thread t takes passes t, t + workers, ...; each writes its own part of `all`.
  const auto work = [&](std::size_t t, std::size_t workers) {
    std::vector<Lanes> stored;
    for (std::size_t p = t; p < passes; p += workers) {
      const std::size_t i = p * kLanes, n = std::min(kLanes, callpaths.size() - i);
      mbm_all_lanes(input, std::span(callpaths).subspan(i, n), stored, std::span(all).subspan(i, n));
    }
  };
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(threads, passes));
  std::vector<std::future<void>> helpers;
  for (std::size_t t = 1; t < workers; ++t) helpers.push_back(std::async(std::launch::async, work, t, workers));
  work(0, workers);
  for (auto& h : helpers) h.get();
  return all;
}

std::vector<MbmRow> maximum_benefit(const ActivityGraph& g, const Cpm& cpm, const NearCriticalPaths& paths,
                                    unsigned threads) {
  return benefit_rows(paths,
                      [&](const std::vector<CallpathId>& to_zero) { return mbm_all_of(g, cpm, to_zero, threads); });
}

// Spread: a ghost sweep (ghost_sweep.hpp) per kLanes call paths, as one process's passes, the
// longest over every part.
std::vector<Ticks> mbm_all_of(const Pag& pag, const Cpm& cpm, const std::vector<CallpathId>& callpaths,
                              ProcessGroup& group, unsigned threads) {
  if (!pag.spread) return mbm_all_of(pag.graph, cpm, callpaths, threads);
  const ActivityGraph& g = pag.graph;
  std::vector<Ticks> all(callpaths.size());
  const ChainTails kept = kept_vertices(g);
  GhostSweep<Lanes> sweep(pag, kFirstVariant, group);
  for (std::size_t i = 0; i < callpaths.size(); i += kLanes) {
    const std::size_t n = std::min(kLanes, callpaths.size() - i);
    const auto zeroed = zeroed_lanes<kLanes>(std::span(callpaths).subspan(i, n));
    Lanes length{};
    const ZeroLanes<kLanes> lanes{zeroed, length};
    // Along a chain's inside every lane adds the chain's duration but the lane zeroing its call
    // path (lanes_by_runs()); values only grow unless a duration is kept aside (maybe negative).
    const auto cross = [&](Lanes& carried, std::uint32_t lo, std::uint32_t hi) {
      Ticks total = 0;
      Lanes left_out{};
      const auto add = [&] {
        for (std::size_t j = 0; j < kLanes; ++j) carried[j] += total - left_out[j];
        total = 0;
        left_out = Lanes{};
      };
      for (std::uint32_t x = lo; x < hi; ++x) {
        const Ticks d = g.chain_duration_of(x);
        if (d < 0) {  // the value before a decrease may be the longest
          add();
          for (std::size_t j = 0; j < kLanes; ++j) length[j] = std::max(length[j], carried[j]);
        }
        total += d;
        const CallpathId cp = g.chain_callpath_of(x);
        for (std::size_t j = 0; j < kLanes; ++j) left_out[j] += cp == zeroed[j] ? d : 0;
      }
      add();
    };
    sweep.run(lanes, lanes, &kept, cross);
    for (const std::string& part : all_gather(group, packed(length))) {
      const auto theirs = Unpacker(part).get<Lanes>();
      for (std::size_t j = 0; j < n; ++j) length[j] = std::max(length[j], theirs[j]);
    }
    for (std::size_t j = 0; j < n; ++j) all[i + j] = cpm.length - length[j];
  }
  return all;
}

std::vector<MbmRow> maximum_benefit(const Pag& pag, const Cpm& cpm, const NearCriticalPaths& paths, ProcessGroup& group,
                                    unsigned threads) {
  return benefit_rows(
      paths, [&](const std::vector<CallpathId>& to_zero) { return mbm_all_of(pag, cpm, to_zero, group, threads); });
}

}  // namespace wisp
