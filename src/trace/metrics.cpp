// Counter samples moved with their timeline. See metrics.hpp.
#include "wisp/trace/metrics.hpp"

#include "wisp/trace/other_locations.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

void move_metrics(const RankTrace& original, RankTrace& moved) {
  if (original.metrics.empty()) return;
  std::vector<double> before, after;
  before.reserve(original.events.size());
  after.reserve(moved.events.size());
  for (const Event& e : original.events) before.push_back(e.time);
  for (const Event& e : moved.events) after.push_back(e.time);
  for (std::size_t l = 0; l < moved.metrics.size(); ++l)
    for (MetricSample& s : moved.metrics[l].samples) {
      const EventIndex i = s.before;
      const bool at_event = l == 0 && i < before.size() && i < after.size() && s.time == before[i];
      s.time = at_event ? after[i] : follow_master(before, after, s.time);
    }
}

}  // namespace wisp
