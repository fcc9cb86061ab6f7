// Counter samples moved with their timeline. See metrics.hpp.
#include "wisp/trace/metrics.hpp"

#include "wisp/trace/other_locations.hpp"

namespace wisp {

void move_metrics(const std::vector<double>& before, const std::vector<double>& after, RankMetrics& metrics) {
  for (std::size_t l = 0; l < metrics.size(); ++l)
    for (MetricSample& s : metrics[l].samples) {
      const EventIndex i = s.before;
      const bool at_event = l == 0 && i < before.size() && i < after.size() && s.time == before[i];
      s.time = at_event ? after[i] : follow_master(before, after, s.time);
    }
}

}  // namespace wisp
