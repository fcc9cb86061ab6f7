// Minimum-based wait-state estimate. See wait_estimate.hpp.
#include "wisp/analysis/wait_estimate.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace wisp {

std::string_view to_string(WaitPattern p) {
  switch (p) {
    case WaitPattern::LateSender:
      return "Late Sender";
    case WaitPattern::WaitAtNxN:
      return "Wait at N x N";
    case WaitPattern::WaitAtBarrier:
      return "Wait at Barrier";
  }
  return "?";
}

std::optional<WaitPattern> wait_pattern_of(MpiFunction f) {
  switch (f) {
    case MpiFunction::Recv:
    case MpiFunction::Wait:
    case MpiFunction::Waitall:
      return WaitPattern::LateSender;
    case MpiFunction::Allreduce:
    case MpiFunction::Allgather:
    case MpiFunction::Allgatherv:
    case MpiFunction::Alltoall:
    case MpiFunction::Alltoallv:
    case MpiFunction::Alltoallw:
    case MpiFunction::ReduceScatter:
    case MpiFunction::ReduceScatterBlock:
      return WaitPattern::WaitAtNxN;
    case MpiFunction::Barrier:
      return WaitPattern::WaitAtBarrier;
    default:
      return std::nullopt;
  }
}

namespace {

// Bytes that decide the size class: received by the call's receive completions, or the
// collective's received bytes.
std::uint64_t call_bytes(const RankTrace& rt, const CallSpan& call) {
  std::uint64_t bytes = 0;
  for (EventIndex i = call.enter + 1; i < call.leave; ++i) {
    const Event& e = rt.events[i];
    if (e.kind == EventKind::MpiRecv || e.kind == EventKind::MpiIrecv) bytes += rt.p2p[e.p2p()].bytes;
    if (e.kind == EventKind::MpiCollectiveEnd) bytes += rt.collectives[e.collective()].received;
  }
  return bytes;
}

struct Visit {
  CallpathId callpath;
  std::uint32_t size_class;
  double duration;
};

using Category = std::pair<MpiFunction, std::uint32_t>;  // (function, size class)

struct Accumulated {
  std::uint64_t visits = 0;
  double time = 0;
};

// Per (call path, rank, size class): visits and time; minima per (rank, category) and global.
struct CallStatistics {
  std::map<std::tuple<CallpathId, Rank, std::uint32_t>, Accumulated> sums;
  std::map<std::pair<Rank, Category>, WaitMinimum> local;
  std::map<Category, WaitMinimum> global;
};

// Every outermost MPI call that can wait, into the sums and minima of its category.
CallStatistics gather_calls(const Trace& trace) {
  const Definitions& defs = trace.defs;
  CallStatistics st;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    if (rt.events.empty()) continue;
    EventIndex outer_leave = 0;
    bool any = false;
    for (const CallSpan& call : rt.mpi_calls) {
      if (any && call.enter <= outer_leave) continue;  // nested in the previous call
      any = true;
      outer_leave = call.leave;
      const CallpathId cp = rt.events[call.enter].callpath();
      const MpiFunction f = defs.region_of(cp).mpi;
      const auto pattern = wait_pattern_of(f);
      if (!pattern) continue;
      const std::uint32_t cls = size_class(call_bytes(rt, call));
      const double d = rt.events[call.leave].time - rt.events[call.enter].time;
      Accumulated& a = st.sums[{cp, r, cls}];
      ++a.visits;
      a.time += d;
      const bool is_local = *pattern == WaitPattern::LateSender;
      WaitMinimum& m = is_local ? st.local[{r, {f, cls}}] : st.global[{f, cls}];
      if (m.visits == 0) m = WaitMinimum{is_local ? r : kNone, f, cls, d, 0};
      m.minimum = std::min(m.minimum, d);
      ++m.visits;
    }
  }
  return st;
}

// One row per (call path, rank): the time above visits x its category's minimum is waiting.
void add_rows(WaitEstimate& out, const CallStatistics& st, const Definitions& defs,
              const TraceBasedWaits* trace_based) {
  for (const auto& [key, a] : st.sums) {
    const auto& [cp, r, cls] = key;
    const MpiFunction f = defs.region_of(cp).mpi;
    const WaitPattern pattern = *wait_pattern_of(f);
    const double minimum =
        pattern == WaitPattern::LateSender ? st.local.at({r, {f, cls}}).minimum : st.global.at({f, cls}).minimum;
    if (out.rows.empty() || out.rows.back().callpath != cp || out.rows.back().rank != r) {
      WaitEstimateRow row;
      row.callpath = cp;
      row.rank = r;
      row.function = f;
      row.pattern = pattern;
      if (trace_based) {
        const auto it = trace_based->find({cp, r});
        if (it != trace_based->end()) row.trace_based = it->second;
      }
      out.rows.push_back(row);
    }
    WaitEstimateRow& row = out.rows.back();
    row.visits += a.visits;
    row.time += a.time;
    row.estimated += std::max(0.0, a.time - static_cast<double>(a.visits) * minimum);
  }
}

}  // namespace

WaitEstimate estimate_waits(const Trace& trace, const TraceBasedWaits* trace_based) {
  WaitEstimate out;
  const CallStatistics st = gather_calls(trace);
  out.allocation_time = trace.rank_count() * trace.span();
  for (const auto& [key, m] : st.local) out.minima.push_back(m);
  for (const auto& [key, m] : st.global) out.minima.push_back(m);
  add_rows(out, st, trace.defs, trace_based);
  return out;
}

WaitEstimate estimate_waits(const Trace& trace, const TraceBasedWaits* trace_based, ProcessGroup& group, double span) {
  if (!trace.share) return estimate_waits(trace, trace_based);
  CallStatistics st = gather_calls(trace);  // this process's ranks
  // The global minima over every process (a minimum and a count: the order does not matter).
  std::vector<WaitMinimum> mine;
  for (const auto& [key, m] : st.global) mine.push_back(m);
  st.global.clear();
  Packer minima;
  minima.put_vector(mine);
  for (const std::string& packet : all_gather(group, minima.take())) {
    Unpacker in(packet);
    for (const WaitMinimum& m : in.get_vector<WaitMinimum>()) {
      WaitMinimum& g = st.global[{m.function, m.size_class}];
      if (g.visits == 0) {
        g = m;
        continue;
      }
      g.minimum = std::min(g.minimum, m.minimum);
      g.visits += m.visits;
    }
  }
  WaitEstimate out;
  out.allocation_time = trace.rank_count() * span;
  add_rows(out, st, trace.defs, trace_based);
  std::vector<WaitMinimum> local;
  for (const auto& [key, m] : st.local) local.push_back(m);
  // Rows and local minima of every process, in process (= rank) order.
  Packer packed;
  packed.put_vector(local).put_vector(out.rows);
  out.rows.clear();
  for (const std::string& packet : all_gather(group, packed.take())) {
    Unpacker in(packet);
    for (const WaitMinimum& m : in.get_vector<WaitMinimum>()) out.minima.push_back(m);
    for (const WaitEstimateRow& row : in.get_vector<WaitEstimateRow>()) out.rows.push_back(row);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const WaitEstimateRow& a, const WaitEstimateRow& b) { return a.callpath < b.callpath; });
  for (const auto& [key, m] : st.global) out.minima.push_back(m);
  return out;
}

std::vector<WaitRatio> wait_ratios(const WaitEstimate& estimate, double threshold) {
  std::map<CallpathId, WaitRatio> by_callpath;
  for (const WaitEstimateRow& row : estimate.rows) {
    WaitRatio& w = by_callpath[row.callpath];
    w.callpath = row.callpath;
    w.pattern = row.pattern;
    w.estimated += row.estimated;
    if (row.trace_based) w.trace_based = w.trace_based.value_or(0) + *row.trace_based;
  }
  std::vector<WaitRatio> out;
  if (estimate.allocation_time <= 0) return out;
  for (auto& [cp, w] : by_callpath) {
    w.estimated /= estimate.allocation_time;
    if (w.trace_based) *w.trace_based /= estimate.allocation_time;
    if (w.estimated >= threshold || w.trace_based.value_or(0) >= threshold) out.push_back(w);
  }
  return out;
}

}  // namespace wisp
