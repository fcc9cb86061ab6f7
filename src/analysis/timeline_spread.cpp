// The timelines of a spread trace. See timeline_spread.hpp. Lanes cross as packed columns; messages
// with their numbers, so that process 0 puts them in the whole trace's order (by number, then
// stably by send time, as build_timeline() sorts them).
#include "wisp/analysis/timeline_spread.hpp"

#include <algorithm>
#include <limits>

#include "wisp/analysis/timeline_summary.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

void pack_lane(Packer& out, const TimelineLane& l) {
  out.put(l.rank).put_string(l.name).put(l.master);
  out.put_vector(l.start).put_vector(l.end).put_vector(l.label).put_vector(l.wait).put_vector(l.critical);
  out.put_vector(l.members);
}

TimelineLane unpack_lane(Unpacker& in) {
  TimelineLane l;
  l.rank = in.get<Rank>();
  l.name = in.get_string();
  l.master = in.get<bool>();
  l.start = in.get_vector<double>();
  l.end = in.get_vector<double>();
  l.label = in.get_vector<std::uint32_t>();
  l.wait = in.get_vector<double>();
  l.critical = in.get_vector<std::uint8_t>();
  l.members = in.get_vector<Rank>();
  return l;
}

// Collective: `lanes`, `splits` and numbered messages of every process, on process 0 in process
// (so rank) order, the messages in the whole trace's order.
void gather_into(Timeline& out, const std::vector<const TimelineLane*>& lanes, const std::vector<RankSplit>& splits,
                 const std::vector<std::uint32_t>& ids, const std::vector<TimelineMessage>& messages,
                 ProcessGroup& group) {
  Packer mine;
  mine.put<std::uint64_t>(lanes.size());
  for (const TimelineLane* l : lanes) pack_lane(mine, *l);
  mine.put_vector(splits).put_vector(ids).put_vector(messages);
  std::vector<std::string> outgoing(static_cast<std::size_t>(group.processes()));
  outgoing[0] = mine.take();
  const std::vector<std::string> incoming = group.exchange(std::move(outgoing));
  if (group.process() != 0) return;
  std::vector<std::pair<std::uint32_t, TimelineMessage>> numbered;
  for (const std::string& packet : incoming) {
    Unpacker in(packet);
    for (auto n = in.get<std::uint64_t>(); n > 0; --n) out.lanes.push_back(unpack_lane(in));
    for (const RankSplit& s : in.get_vector<RankSplit>()) out.ranks.push_back(s);
    const std::vector<std::uint32_t> their_ids = in.get_vector<std::uint32_t>();
    const std::vector<TimelineMessage> theirs = in.get_vector<TimelineMessage>();
    for (std::size_t k = 0; k < theirs.size() && k < their_ids.size(); ++k)
      numbered.emplace_back(their_ids[k], theirs[k]);
  }
  std::sort(numbered.begin(), numbered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [id, m] : numbered) out.messages.push_back(m);
  std::stable_sort(out.messages.begin(), out.messages.end(),
                   [](const TimelineMessage& a, const TimelineMessage& b) { return a.send < b.send; });
}

// The frame every gathered timeline keeps: the whole run's start, end and labels.
Timeline frame_of(const Timeline& t) {
  Timeline f;
  f.start = t.start;
  f.end = t.end;
  f.labels = t.labels;
  return f;
}

}  // namespace

TimelinePart build_timeline_part(const Trace& trace, const WaitPathAnalysis& analysis, ProcessGroup& group) {
  TimelinePart part;
  const RankShare share = trace.share ? *trace.share : RankShare{0, trace.rank_count()};
  Timeline& t = part.timeline;
  t = build_timeline_of_ranks(trace, analysis, share.first, share.last);
  // Receive times of messages received here and sent from another process's ranks go there.
  const std::vector<RankShare> shares = gather_shares(group, share);
  std::vector<Packer> out(shares.size());
  for (std::size_t k = 0; k < trace.messages.size(); ++k) {
    const Message& m = trace.messages[k];
    if (!trace.holds(m.receiver) || trace.holds(m.sender)) continue;
    const P2P& v = trace.recv_of(m);
    const double time =
        v.event == kNone ? std::numeric_limits<double>::quiet_NaN() : trace.event(m.receiver, v.event).time;
    out[static_cast<std::size_t>(owner_of(shares, m.sender))].put(trace.message_id(k)).put(time);
  }
  std::vector<std::string> packets(shares.size());
  for (std::size_t p = 0; p < shares.size(); ++p) packets[p] = out[p].take();
  std::vector<std::pair<std::uint32_t, double>> received;  // (message, receive time), by message
  for (const std::string& packet : group.exchange(std::move(packets))) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto id = in.get<std::uint32_t>();
      received.emplace_back(id, in.get<double>());
    }
  }
  std::sort(received.begin(), received.end());
  for (std::size_t k = 0; k < trace.messages.size(); ++k) {
    const Message& m = trace.messages[k];
    if (!trace.holds(m.sender)) continue;
    const std::uint32_t id = trace.message_id(k);
    const P2P& s = trace.send_of(m);
    double recv = std::numeric_limits<double>::quiet_NaN();
    if (trace.holds(m.receiver)) {
      const P2P& v = trace.recv_of(m);
      if (v.event != kNone) recv = trace.event(m.receiver, v.event).time;
    } else {
      const auto at =
          std::lower_bound(received.begin(), received.end(), std::pair{id, -std::numeric_limits<double>::infinity()});
      if (at != received.end() && at->first == id) recv = at->second;
    }
    if (s.event == kNone || recv != recv) continue;  // a side without its event (NaN): not drawn, as in one process
    t.messages.push_back({m.sender, m.receiver, trace.event(m.sender, s.event).time, recv, s.bytes});
    part.message_ids.push_back(id);
  }
  Packer totals;
  totals.put<std::uint64_t>(t.interval_count()).put<std::uint64_t>(t.messages.size());
  for (const std::string& packet : all_gather(group, totals.take())) {
    Unpacker in(packet);
    part.intervals += in.get<std::uint64_t>();
    part.messages += in.get<std::uint64_t>();
  }
  const TraceSummary whole = summary_over(trace, group);  // the run's first and last event
  t.start = whole.start_time();
  t.end = whole.end_time();
  return part;
}

Timeline gather_timeline(const TimelinePart& part, ProcessGroup& group) {
  Timeline out = frame_of(part.timeline);
  out.critical_path = part.timeline.critical_path;
  std::vector<const TimelineLane*> lanes;
  for (const TimelineLane& l : part.timeline.lanes) lanes.push_back(&l);
  gather_into(out, lanes, part.timeline.ranks, part.message_ids, part.timeline.messages, group);
  return group.process() == 0 ? out : Timeline{};
}

Timeline gather_master_lanes(const TimelinePart& part, Rank first, Rank last, ProcessGroup& group) {
  Timeline out = frame_of(part.timeline);
  std::vector<const TimelineLane*> lanes;
  for (const TimelineLane& l : part.timeline.lanes)
    if (l.master && l.rank >= first && l.rank < last) lanes.push_back(&l);
  gather_into(out, lanes, {}, {}, {}, group);
  return group.process() == 0 ? out : Timeline{};
}

std::vector<RankSplit> gather_timeline_splits(const TimelinePart& part, ProcessGroup& group) {
  Timeline out;
  gather_into(out, {}, part.timeline.ranks, {}, {}, group);
  return out.ranks;
}

Timeline gather_window(const TimelinePart& part, double t0, double t1, ProcessGroup& group) {
  const Timeline mine = timeline_window(part.timeline, t0, t1);
  std::vector<std::uint32_t> ids;  // the numbers of the messages timeline_window() kept (by send time)
  for (std::size_t k = 0; k < part.timeline.messages.size(); ++k)
    if (part.timeline.messages[k].send >= t0 && part.timeline.messages[k].send < t1) ids.push_back(part.message_ids[k]);
  Timeline out;
  out.start = t0;
  out.end = t1;
  out.labels = part.timeline.labels;
  out.critical_path = mine.critical_path;
  std::vector<const TimelineLane*> lanes;
  for (const TimelineLane& l : mine.lanes) lanes.push_back(&l);
  gather_into(out, lanes, part.timeline.ranks, ids, mine.messages, group);
  return group.process() == 0 ? out : Timeline{};
}

double window_end(const TimelinePart& part, std::size_t max_intervals, double from, ProcessGroup& group) {
  return window_end(
      [&](double end) {
        std::uint64_t n = 0;
        for (const std::string& packet :
             all_gather(group, packed<std::uint64_t>(intervals_overlapping(part.timeline, from, end))))
          n += Unpacker(packet).get<std::uint64_t>();
        return static_cast<std::size_t>(n);
      },
      from, part.timeline.end, max_intervals);
}

}  // namespace wisp
