// Per-thread time per call path. See thread_profile.hpp.
#include "wisp/analysis/thread_profile.hpp"

#include <algorithm>
#include <map>

#include "wisp/analysis/profile.hpp"

namespace wisp {

namespace {

// The master's call path in effect after each of its events, and the events' times.
struct MasterStack {
  std::vector<double> times;
  std::vector<CallpathId> after;
};

MasterStack master_stack(const Definitions& defs, const RankTrace& rt) {
  MasterStack m;
  CallpathId current = kNone;
  for (const Event& e : rt.events) {
    current = callpath_after(defs, e, current);
    m.times.push_back(e.time);
    m.after.push_back(current);
  }
  return m;
}

// The call path a thread's outermost region at time t continues: the parent of the master's
// visit of the same region (the parallel region the thread belongs to), else the master's at t.
std::string prefix_at(const Definitions& defs, const MasterStack& m, double t, RegionId region) {
  const auto next = std::upper_bound(m.times.begin(), m.times.end(), t);
  if (next == m.times.begin()) return "";
  const CallpathId current = m.after[static_cast<std::size_t>(next - m.times.begin()) - 1];
  CallpathId cp = current;
  while (cp != kNone && defs.callpaths[cp].region != region) cp = defs.callpaths[cp].parent;
  cp = cp == kNone ? current : defs.callpaths[cp].parent;
  return cp == kNone ? "" : defs.callpath_name(cp);
}

// One location's exclusive time per call path (its region stack on top of the master's).
void profile_location(const Definitions& defs, const MasterStack& m, const std::vector<LocationEvent>& events,
                      std::map<std::string, double>& out) {
  std::vector<std::string> stack;  // call path names of the open regions
  double last = 0;
  for (const LocationEvent& e : events) {
    if (!stack.empty()) out[stack.back()] += e.time - last;
    last = e.time;
    if (e.enter) {
      const std::string base = stack.empty() ? prefix_at(defs, m, e.time, e.region) : stack.back();
      stack.push_back((base.empty() ? "" : base + "/") + defs.regions[e.region].name);
    } else if (!stack.empty()) {
      stack.pop_back();
    }
  }
}

}  // namespace

std::vector<ThreadTime> thread_profile(const Trace& t) {
  std::vector<ThreadTime> rows;
  for (Rank r = 0; r < t.rank_count(); ++r) {
    if (t.ranks[r].others.empty()) continue;
    const MasterStack m = master_stack(t.defs, t.ranks[r]);
    for (std::uint32_t k = 0; k < t.ranks[r].others.size(); ++k) {
      std::map<std::string, double> times;
      profile_location(t.defs, m, t.ranks[r].others[k], times);
      for (const auto& [callpath, seconds] : times) rows.push_back({r, k, callpath, seconds});
    }
  }
  return rows;
}

std::vector<ThreadTime> thread_profile(const Trace& trace, ProcessGroup& group) {
  if (!trace.share) return thread_profile(trace);
  Packer mine;
  for (const ThreadTime& t : thread_profile(trace))
    mine.put(t.rank).put(t.location).put_string(t.callpath).put(t.seconds);
  std::vector<ThreadTime> rows;
  for (const std::string& packet : all_gather(group, mine.take())) {
    Unpacker in(packet);
    while (!in.done()) {
      ThreadTime t;
      t.rank = in.get<Rank>();
      t.location = in.get<std::uint32_t>();
      t.callpath = in.get_string();
      t.seconds = in.get<double>();
      rows.push_back(std::move(t));
    }
  }
  return rows;
}

}  // namespace wisp
