// Other locations follow their master. See other_locations.hpp.
#include "wisp/trace/other_locations.hpp"

#include <algorithm>

#include "wisp/trace/trace.hpp"

namespace wisp {

double follow_master(const std::vector<double>& before, const std::vector<double>& after, double t) {
  if (before.empty()) return t;
  const auto next = std::upper_bound(before.begin(), before.end(), t);  // first master event after t
  if (next == before.begin()) return t + (after.front() - before.front());
  const std::size_t k = static_cast<std::size_t>(next - before.begin()) - 1;  // last one at or before t
  if (next == before.end() || before[k + 1] <= before[k]) return t + (after[k] - before[k]);
  const double fraction = (t - before[k]) / (before[k + 1] - before[k]);
  return after[k] + fraction * (after[k + 1] - after[k]);
}

void move_other_locations(const RankTrace& original, RankTrace& moved) {
  if (original.others.empty()) return;
  std::vector<double> before, after;
  before.reserve(original.events.size());
  after.reserve(moved.events.size());
  for (const Event& e : original.events) before.push_back(e.time);
  for (const Event& e : moved.events) after.push_back(e.time);
  moved.others = original.others;
  for (auto& location : moved.others)
    for (LocationEvent& e : location) e.time = follow_master(before, after, e.time);
}

}  // namespace wisp
