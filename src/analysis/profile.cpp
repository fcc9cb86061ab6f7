// Call-path profile: one forward pass per rank. See profile.hpp.
#include "wisp/analysis/profile.hpp"

namespace wisp {

Profile compute_profile(const Trace& trace) {
  Profile p{CallpathMatrix(trace), CallpathMatrix(trace)};
  const Definitions& defs = trace.defs;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& events = trace.ranks[r].events;
    if (events.empty()) continue;
    double* time = p.time.row(r);
    double* visits = p.visits.row(r);
    visits[0] = 1;
    CallpathId current = kNone;
    double stamp = events.front().time;
    for (const Event& e : events) {
      if (!is_time_stamp(e.kind)) continue;
      time[slot_of(current)] += e.time - stamp;
      stamp = e.time;
      if (e.kind == EventKind::Enter) visits[slot_of(e.callpath())] += 1;
      current = callpath_after(defs, e, current);
    }
  }
  return p;
}

}  // namespace wisp
