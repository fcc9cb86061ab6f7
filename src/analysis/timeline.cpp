// The timeline of a trace for the reports (timeline.hpp): intervals between Enter/Leave events,
// waits and critical-path flags attached to them, messages, and the per-rank time split.
#include "wisp/analysis/timeline.hpp"
#include "wisp/trace/short_names.hpp"

#include <algorithm>

namespace wisp {

namespace {

std::vector<TimelineLabel> labels_of(const Definitions& defs) {
  std::vector<TimelineLabel> labels;
  labels.reserve(defs.callpaths.size() + defs.regions.size());
  const std::vector<std::string> paths = callpath_display_names(defs), regions = region_display_names(defs);
  for (CallpathId cp = 0; cp < defs.callpaths.size(); ++cp) {
    const Region& r = defs.region_of(cp);
    labels.push_back({defs.callpath_name(cp), r.name, is_mpi(r.kind), defs.callpaths[cp].parent, paths[cp]});
  }
  for (RegionId id = 0; id < defs.regions.size(); ++id) {
    const Region& r = defs.regions[id];
    labels.push_back({r.name, r.name, is_mpi(r.kind), kNone, regions[id]});
  }
  return labels;
}

void add_interval(TimelineLane& lane, double start, double end, std::uint32_t label) {
  lane.start.push_back(start);
  lane.end.push_back(end);
  lane.label.push_back(label);
  lane.wait.push_back(0);
  lane.critical.push_back(0);
}

// The master lane of rank r; `at_event[i]` is the interval event i happens in (kNone: none, or
// an interval of no duration). An Enter or Leave belongs to the interval it closes.
TimelineLane master_lane(const Trace& trace, Rank r, std::vector<std::uint32_t>& at_event) {
  TimelineLane lane;
  lane.rank = r;
  lane.name = "rank " + std::to_string(r);
  const std::vector<Event>& events = trace.ranks[r].events;
  at_event.assign(events.size(), kNone);
  std::vector<EventIndex> open;  // events inside the interval not yet closed
  CallpathId current = kNone;
  double since = 0;
  for (EventIndex i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    open.push_back(i);
    if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
    if (current != kNone && e.time > since) {
      add_interval(lane, since, e.time, current);
      for (EventIndex k : open) at_event[k] = static_cast<std::uint32_t>(lane.start.size() - 1);
    }
    open.clear();
    current = e.kind == EventKind::Enter ? e.callpath() : trace.defs.callpaths[e.callpath()].parent;
    since = e.time;
  }
  return lane;
}

// The lane of another location: its region stack; labels after the call paths.
TimelineLane other_lane(const Trace& trace, Rank r, std::size_t k, std::uint32_t first_region_label) {
  TimelineLane lane;
  lane.rank = r;
  lane.name = "rank " + std::to_string(r) + " " + trace.defs.ranks[r].others[k].name;
  lane.master = false;
  std::vector<RegionId> stack;
  double since = 0;
  for (const LocationEvent& e : trace.ranks[r].others[k]) {
    if (!stack.empty() && e.time > since) add_interval(lane, since, e.time, first_region_label + stack.back());
    if (e.enter)
      stack.push_back(e.region);
    else if (!stack.empty())
      stack.pop_back();
    since = e.time;
  }
  return lane;
}

// `masters[r]`: rank r's master lane, null where this process does not hold the rank.
void attach_waits(const WaitStates& waits, std::vector<TimelineLane*>& masters,
                  const std::vector<std::vector<std::uint32_t>>& at_event) {
  for (const WaitState& w : waits.instances) {
    if (w.rank >= masters.size() || !masters[w.rank] || w.event >= at_event[w.rank].size()) continue;
    const std::uint32_t i = at_event[w.rank][w.event];
    if (i != kNone) masters[w.rank]->wait[i] += w.seconds;
  }
}

// Flags every master interval that overlaps a segment of the path on its rank.
void attach_critical_path(const std::vector<PathSegment>& path, std::vector<TimelineLane*>& masters) {
  std::vector<std::vector<PathSegment>> by_rank(masters.size());
  for (const PathSegment& s : path)
    if (s.rank < masters.size() && s.end > s.start) by_rank[s.rank].push_back(s);
  for (Rank r = 0; r < masters.size(); ++r) {
    if (!masters[r]) continue;
    auto& segs = by_rank[r];
    std::sort(segs.begin(), segs.end(), [](const PathSegment& a, const PathSegment& b) { return a.start < b.start; });
    TimelineLane& lane = *masters[r];
    std::size_t s = 0;
    for (std::size_t i = 0; i < lane.start.size() && s < segs.size(); ++i) {
      while (s < segs.size() && segs[s].end <= lane.start[i]) ++s;
      if (s < segs.size() && segs[s].start < lane.end[i]) lane.critical[i] = 1;
    }
  }
}

RankSplit split_of(const TimelineLane& lane, const std::vector<TimelineLabel>& labels) {
  RankSplit split;
  for (std::size_t i = 0; i < lane.start.size(); ++i) {
    const double d = lane.end[i] - lane.start[i];
    if (!labels[lane.label[i]].mpi)
      split.computation += d;
    else {
      split.waiting += lane.wait[i];
      split.mpi += d - lane.wait[i];
    }
  }
  return split;
}

std::vector<TimelineMessage> messages_of(const Trace& trace) {
  std::vector<TimelineMessage> out;
  out.reserve(trace.messages.size());
  for (const Message& m : trace.messages) {
    const P2P& s = trace.send_of(m);
    const P2P& v = trace.recv_of(m);
    if (s.event == kNone || v.event == kNone) continue;
    out.push_back(
        {m.sender, m.receiver, trace.event(m.sender, s.event).time, trace.event(m.receiver, v.event).time, s.bytes});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TimelineMessage& a, const TimelineMessage& b) { return a.send < b.send; });
  return out;
}

}  // namespace

Timeline build_timeline_of_ranks(const Trace& trace, const WaitPathAnalysis& analysis, Rank first, Rank last) {
  Timeline t;
  t.labels = labels_of(trace.defs);
  const auto first_region_label = static_cast<std::uint32_t>(trace.defs.callpaths.size());
  std::vector<std::vector<std::uint32_t>> at_event(trace.rank_count());
  std::vector<std::size_t> master_index;
  for (Rank r = first; r < last; ++r) {
    master_index.push_back(t.lanes.size());
    t.lanes.push_back(master_lane(trace, r, at_event[r]));
    for (std::size_t k = 0; k < trace.ranks[r].others.size(); ++k)
      t.lanes.push_back(other_lane(trace, r, k, first_region_label));
  }
  std::vector<TimelineLane*> masters(trace.rank_count(), nullptr);
  for (std::size_t i = 0; i < master_index.size(); ++i) masters[first + i] = &t.lanes[master_index[i]];
  attach_waits(analysis.waits, masters, at_event);
  attach_critical_path(analysis.critical_path.segments, masters);
  for (std::size_t i : master_index) t.ranks.push_back(split_of(t.lanes[i], t.labels));
  t.critical_path = analysis.critical_path.segments;
  return t;
}

Timeline build_timeline(const Trace& trace, const WaitPathAnalysis& analysis) {
  Timeline t = build_timeline_of_ranks(trace, analysis, 0, trace.rank_count());
  t.start = trace.start_time();
  t.end = trace.end_time();
  t.messages = messages_of(trace);
  return t;
}

std::size_t Timeline::interval_count() const {
  std::size_t n = 0;
  for (const TimelineLane& l : lanes) n += l.start.size();
  return n;
}

}  // namespace wisp
