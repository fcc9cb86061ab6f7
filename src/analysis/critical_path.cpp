// Critical path by backward replay over the synchronisation points. See critical_path.hpp.
#include "wisp/analysis/critical_path.hpp"

#include <spdlog/spdlog.h>

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

  // One walk, whatever group it runs in: it goes on on the process that holds its rank, and its
  // state (the rank and point it goes on at, the length so far, how many pieces it has) crosses
  // to the next one; the pieces are gathered in the order they were found.
  void run(ProcessGroup& group) {
    const std::vector<RankShare> shares = gather_shares(group, trace_.held());
    const Rank first = start_rank(group, shares[static_cast<std::size_t>(group.process())]);
    out_.end_rank = first;
    Token token;
    token.leg.rank = first;
    token.state = first == kNone ? Token::Done : Token::Start;
    bool mine = first != kNone && trace_.holds(first);
    std::uint64_t exchanges = 0;
    std::vector<Visit> visits;  // the walk's stays here: the pieces each found in out_.segments
    while (token.state != Token::Done) {
      std::vector<std::string> out(static_cast<std::size_t>(group.processes()));
      if (mine) {
        Leg leg = token.state == Token::Start ? start(token.leg.rank) : token.leg;
        length_ = token.length;
        const std::size_t found = out_.segments.size();
        do leg = follow(enter(leg));
        while (leg.rank != kNone && trace_.holds(leg.rank));
        visits.push_back(Visit{token.seq, found, out_.segments.size() - found});
        token.seq += visits.back().count;
        token.leg = leg;
        token.length = length_;
        token.stopped_early = out_.stopped_early;
        token.state = leg.rank == kNone ? Token::Done : Token::Continue;
        const std::string packet = packed(token);
        if (token.state == Token::Done)
          out.assign(out.size(), packet);
        else
          out[static_cast<std::size_t>(owner_of(shares, leg.rank))] = packet;
      }
      mine = false;
      ++exchanges;
      for (const std::string& packet : group.exchange(std::move(out)))
        if (!packet.empty()) {
          Unpacker in(packet);
          token = in.get<Token>();
          mine = token.state != Token::Done;
        }
    }
    out_.length = token.length;
    out_.stopped_early = token.stopped_early;
    if (group.processes() > 1)
      spdlog::debug("critical path, process {}: {} exchanges of the walk", group.process(), exchanges);
    // The pieces found here go to every other process; the path is all of them in time order
    // (the walk found them backwards).
    std::vector<std::string> out(static_cast<std::size_t>(group.processes()));
    std::string pieces;  // packed once, for the first other process
    for (std::size_t p = 0; p < out.size(); ++p) {
      if (static_cast<int>(p) == group.process()) continue;
      if (pieces.empty()) pieces = Packer().put_vector(visits).put_vector(out_.segments).take();
      out[p] = pieces;
    }
    const std::vector<std::string> received = group.exchange(std::move(out));
    for (std::size_t p = 0; p < received.size(); ++p) {
      if (static_cast<int>(p) == group.process()) continue;
      Unpacker in(received[p]);
      std::vector<Visit> theirs = in.get_vector<Visit>();
      const std::vector<PathSegment> segments = in.get_vector<PathSegment>();
      for (Visit& v : theirs) v.first += out_.segments.size();
      visits.insert(visits.end(), theirs.begin(), theirs.end());
      out_.segments.insert(out_.segments.end(), segments.begin(), segments.end());
    }
    const auto by_seq = [](const Visit& a, const Visit& b) { return a.seq < b.seq; };
    if (!std::is_sorted(visits.begin(), visits.end(), by_seq)) {
      std::sort(visits.begin(), visits.end(), by_seq);
      std::vector<PathSegment> sorted;
      sorted.reserve(out_.segments.size());
      for (const Visit& v : visits)
        sorted.insert(sorted.end(), out_.segments.begin() + static_cast<std::ptrdiff_t>(v.first),
                      out_.segments.begin() + static_cast<std::ptrdiff_t>(v.first + v.count));
      out_.segments = std::move(sorted);
    }
    std::reverse(out_.segments.begin(), out_.segments.end());
  }

 private:
  // Where the walk goes on: a rank, the point it arrived at (kNone: its end) and the stamp the
  // walk back from there starts at.
  struct Leg {
    Rank rank = kNone;
    std::uint32_t target = kNone;
    EventIndex end_stamp = kNone;
    bool arrived = false;  // the target is checked against the rank's frontier
  };
  // A stay of the walk on one process: the pieces [first, first + count) of its segments, the
  // walk's pieces seq, seq + 1, ...
  struct Visit {
    std::uint64_t seq = 0, first = 0, count = 0;
  };
  struct Token {
    enum State : std::uint8_t { Start, Continue, Done };
    Leg leg;
    double length = 0;
    std::uint64_t seq = 0;
    std::uint64_t stopped_early = 0;
    State state = Start;
  };

  // The path's end on the rank it starts at.
  Leg start(Rank r) {
    const std::uint32_t end_point = finalize_point(r);
    if (end_point != kNone) frontier_[r] = end_point;
    return Leg{r, end_point, end_point != kNone ? graph_.ranks[r].points[end_point].stamp : last_stamp(r), true};
  }

  // Arriving at a point of another rank: the jump must not revisit the rank's past.
  Leg enter(Leg leg) {
    if (leg.arrived) return leg;
    if (leg.target >= frontier_[leg.rank]) {
      out_.stopped_early = 1;
      return Leg{};
    }
    frontier_[leg.rank] = leg.target;
    leg.end_stamp = graph_.ranks[leg.rank].points[leg.target].stamp;
    leg.arrived = true;
    return leg;
  }

  // Walks rank leg.rank back to its previous wait and returns where the path jumps (a rank of
  // kNone: it ends).
  Leg follow(const Leg& leg) {
    if (leg.rank == kNone) return leg;
    const Rank r = leg.rank;
    const std::uint32_t from = previous_wait(r);
    const auto& points = graph_.ranks[r].points;
    const bool has_from = from != kNone;
    walk(r, has_from ? points[from].stamp : first_stamp(r), leg.end_stamp, has_from ? points[from].wait : 0.0);
    if (!has_from || points[from].init) return Leg{};
    frontier_[r] = from;
    const WaitState& ws = waits_.instances[points[from].waiter_of];
    const std::uint32_t target = graph_.links[points[from].waiter_of].delayer_sync;
    if (target == kNone) {
      out_.stopped_early = 1;
      return Leg{};
    }
    return Leg{ws.delayer, target, kNone, false};
  }

  // Scalasca: the rank that entered MPI_Finalize last; without MPI_Finalize, the last to end (the
  // ranks' last times cross to every process).
  Rank start_rank(ProcessGroup& group, RankShare here) const {
    if (waits_.finalize.present) return waits_.finalize.latest;
    Packer mine;
    for (Rank r = here.first; r < here.last; ++r)
      if (!trace_.ranks[r].events.empty()) mine.put(r).put(trace_.ranks[r].events.back().time);
    std::vector<double> last(trace_.rank_count(), 0.0);
    std::vector<char> has(trace_.rank_count(), 0);
    for (const std::string& packet : all_gather(group, mine.take())) {
      Unpacker in(packet);
      while (!in.done()) {
        const auto r = in.get<Rank>();
        last[r] = in.get<double>(), has[r] = 1;
      }
    }
    Rank best = kNone;
    for (Rank r = 0; r < trace_.rank_count(); ++r)
      if (has[r] && (best == kNone || last[r] > last[best])) best = r;
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
    length_ += end - start;
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
  double length_ = 0;  // the path's length so far
};

}  // namespace

CriticalPath find_critical_path(const Trace& trace, const WaitStates& waits, const SyncGraph& graph,
                                ProcessGroup& group) {
  CriticalPath cp;
  cp.profile = CallpathMatrix(trace);
  PathWalk(trace, waits, graph, cp).run(group_for(trace, group));
  return cp;
}

CriticalPath find_critical_path(const Trace& trace, const WaitStates& waits, const SyncGraph& graph) {
  SoloProcess alone;
  return find_critical_path(trace, waits, graph, alone);
}

}  // namespace wisp
