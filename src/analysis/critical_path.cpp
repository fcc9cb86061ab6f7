// Critical path by backward replay over the synchronisation points. See critical_path.hpp.
#include "wisp/analysis/critical_path.hpp"

#include <algorithm>

#include "wisp/analysis/profile.hpp"

namespace wisp {

namespace {

class PathWalk {
 public:
  PathWalk(const Trace& t, const WaitStates& w, const SyncGraph& g, CriticalPath& out)
      : trace_(t), waits_(w), graph_(g), out_(out) {
    frontier_.resize(t.rank_count());
    for (Rank r = 0; r < t.rank_count(); ++r) frontier_[r] = static_cast<std::uint32_t>(g.ranks[r].points.size());
  }

  void run() {
    Rank r = start_rank();
    out_.end_rank = r;
    if (r == kNone) return;
    std::uint32_t end_point = finalize_point(r);
    EventIndex end_stamp = end_point != kNone ? graph_.ranks[r].points[end_point].stamp : last_stamp(r);
    if (end_point != kNone) frontier_[r] = end_point;
    while (true) {
      const std::uint32_t from = previous_wait(r);
      const auto& points = graph_.ranks[r].points;
      const bool has_from = from != kNone;
      walk(r, has_from ? points[from].stamp : first_stamp(r), end_stamp, has_from ? points[from].wait : 0.0);
      if (!has_from || points[from].init) break;
      frontier_[r] = from;
      const WaitState& ws = waits_.instances[points[from].waiter_of];
      const std::uint32_t target = graph_.links[points[from].waiter_of].delayer_sync;
      if (target == kNone || target >= frontier_[ws.delayer]) {
        out_.stopped_early = 1;
        break;
      }
      r = ws.delayer;
      frontier_[r] = target;
      end_stamp = graph_.ranks[r].points[target].stamp;
    }
    std::reverse(out_.segments.begin(), out_.segments.end());
  }

 private:
  // Scalasca: the rank that entered MPI_Finalize last; without MPI_Finalize, the last to end.
  Rank start_rank() const {
    if (waits_.finalize.present) return waits_.finalize.latest;
    Rank best = kNone;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const auto& ev = trace_.ranks[r].events;
      if (ev.empty()) continue;
      if (best == kNone || ev.back().time > trace_.ranks[best].events.back().time) best = r;
    }
    return best;
  }

  std::uint32_t finalize_point(Rank r) const {
    const auto& points = graph_.ranks[r].points;
    for (std::uint32_t k = static_cast<std::uint32_t>(points.size()); k-- > 0;)
      if (points[k].finalize) return k;
    return kNone;
  }

  EventIndex last_stamp(Rank r) const {
    const auto& ev = trace_.ranks[r].events;
    for (EventIndex i = static_cast<EventIndex>(ev.size()); i-- > 0;)
      if (is_time_stamp(ev[i].kind)) return i;
    return kNone;
  }

  EventIndex first_stamp(Rank r) const {
    const auto& ev = trace_.ranks[r].events;
    for (EventIndex i = 0; i < ev.size(); ++i)
      if (is_time_stamp(ev[i].kind)) return i;
    return kNone;
  }

  // The latest point below the rank's frontier where the path leaves it: a wait state it can
  // follow, or MPI_Init (where the path ends).
  std::uint32_t previous_wait(Rank r) const {
    const auto& points = graph_.ranks[r].points;
    for (std::uint32_t k = frontier_[r]; k-- > 0;) {
      const SyncPoint& p = points[k];
      if (p.init) return k;
      if (p.waiter_of != kNone && p.wait > 0) return k;
    }
    return kNone;
  }

  // Appends the pieces of rank r between two time stamps (backwards: the caller reverses at the
  // end), without the first `wait` seconds.
  void walk(Rank r, EventIndex from, EventIndex to, double wait) {
    if (from == kNone || to == kNone || to < from) return;
    const auto& ev = trace_.ranks[r].events;
    const Definitions& defs = trace_.defs;
    piece_.clear();
    const double clip = ev[from].time + wait;
    CallpathId current = callpath_after(defs, ev[from], kNone);
    double t = ev[from].time;
    for (EventIndex k = from + 1; k <= to; ++k) {
      const Event& e = ev[k];
      if (!is_time_stamp(e.kind)) continue;
      add_piece(r, current, std::max(t, clip), e.time);
      t = e.time;
      current = callpath_after(defs, e, current);
    }
    for (auto it = piece_.rbegin(); it != piece_.rend(); ++it) out_.segments.push_back(*it);
  }

  void add_piece(Rank r, CallpathId cp, double start, double end) {
    if (!(end > start)) return;
    out_.profile.at(slot_of(cp), r) += end - start;
    out_.length += end - start;
    if (!piece_.empty() && piece_.back().callpath == cp && piece_.back().end == start) {
      piece_.back().end = end;
      return;
    }
    piece_.push_back(PathSegment{r, cp, start, end});
  }

  const Trace& trace_;
  const WaitStates& waits_;
  const SyncGraph& graph_;
  CriticalPath& out_;
  std::vector<std::uint32_t> frontier_;  // points at or above it are already on the path
  std::vector<PathSegment> piece_;
};

}  // namespace

CriticalPath find_critical_path(const Trace& trace, const WaitStates& waits, const SyncGraph& graph) {
  CriticalPath cp;
  cp.profile = CallpathMatrix(trace);
  PathWalk(trace, waits, graph, cp).run();
  return cp;
}

}  // namespace wisp
