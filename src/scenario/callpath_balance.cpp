// The decomposition balanced call path by call path. See callpath_balance.hpp.
#include "wisp/scenario/callpath_balance.hpp"

#include <unordered_map>

namespace wisp {

namespace {

// A call path's k-th visit on a rank.
using Instance = std::uint64_t;
Instance instance(CallpathId cp, std::uint32_t k) { return (std::uint64_t{cp} << 32) | k; }

// One rank's exclusive computation per instance, and which instance every gap belongs to.
struct RankInstances {
  std::unordered_map<Instance, double> own;        // seconds
  std::unordered_map<Instance, EventIndex> enter;  // its Enter event
  std::vector<std::pair<EventIndex, Instance>> gaps;
};

RankInstances rank_instances(const Trace& t, Rank r, const std::vector<Visit>& visits,
                             std::unordered_map<CallpathId, std::uint32_t>& most) {
  RankInstances out;
  const auto& ev = t.ranks[r].events;
  const std::vector<bool> in_mpi = mpi_gaps(t.ranks[r]);
  std::unordered_map<CallpathId, std::uint32_t> count;
  std::vector<std::pair<Instance, bool>> stack;  // open instances; false: a measurement region
  for (const Visit& v : visits) {
    if (v.rank != r) continue;
    stack.clear();
    for (EventIndex i = v.enter; i < v.leave; ++i) {
      const Event& e = ev[i];
      if (e.kind == EventKind::Enter) {
        const std::uint32_t k = count[e.callpath()]++;
        const RegionKind kind = t.defs.region_of(e.callpath()).kind;
        const bool counted = kind != RegionKind::Measurement;
        stack.emplace_back(instance(e.callpath(), k), counted);
        if (counted && !is_mpi(kind)) {
          most[e.callpath()] = std::max(most[e.callpath()], k + 1);
          out.own.try_emplace(stack.back().first, 0.0);
          out.enter.try_emplace(stack.back().first, i);
        }
      } else if (e.kind == EventKind::Leave && !stack.empty()) {
        stack.pop_back();
      }
      if (stack.empty() || !stack.back().second || in_mpi[i]) continue;
      out.own[stack.back().first] += ev[i + 1].time - e.time;
      out.gaps.emplace_back(i, stack.back().first);
    }
  }
  return out;
}

}  // namespace

CallpathBalance balance_callpaths(const Trace& t, const std::vector<Visit>& visits) {
  std::vector<RankInstances> ranks(t.rank_count());
  std::unordered_map<CallpathId, std::uint32_t> most;                // visits of a call path on its busiest rank
  std::unordered_map<Instance, std::pair<double, std::size_t>> sum;  // over ranks: seconds, ranks
  std::vector<bool> selected(t.rank_count(), false);
  for (const Visit& v : visits) selected[v.rank] = true;
  for (Rank r = 0; r < t.rank_count(); ++r) {
    if (!selected[r]) continue;
    ranks[r] = rank_instances(t, r, visits, most);
    for (const auto& [key, seconds] : ranks[r].own) {
      sum[key].first += seconds;
      ++sum[key].second;
    }
  }
  CallpathBalance out;
  out.gaps.factor.resize(t.rank_count());
  out.gaps.extra.resize(t.rank_count());
  for (Rank r = 0; r < t.rank_count(); ++r) {
    if (!selected[r]) continue;
    auto& factor = out.gaps.factor[r];
    auto& extra = out.gaps.extra[r];
    factor.assign(t.ranks[r].events.size(), 1.0);
    extra.assign(factor.size(), 0.0);
    const auto mean = [&](Instance key) { return sum[key].first / static_cast<double>(sum[key].second); };
    for (const auto& [i, key] : ranks[r].gaps)
      if (const double own = ranks[r].own[key]; own > 0) factor[i] = mean(key) / own;
    for (const auto& [key, seconds] : ranks[r].own)
      if (seconds <= 0) extra[ranks[r].enter[key]] += mean(key);  // right after its Enter
  }
  out.instances = sum.size();
  out.callpaths = most.size();
  for (const auto& [cp, n] : most) out.repeated += n > 1;
  return out;
}

}  // namespace wisp
