// Calibration of the rooted collective algorithms from the trace: a binomial tree makes members
// wait for each other, which a traced run may show never happened. See calibrate.hpp.
#include <fmt/format.h>

#include "wisp/replay/calibrate.hpp"

namespace wisp {

namespace {

struct Member {
  double begin = 0, end = 0;
  bool present = false;
};

// The members of one instance by local rank (relative to the root: index 0 is the root).
std::vector<Member> members(const Trace& t, const CollectiveInstance& c) {
  const std::vector<Rank>& ranks = t.defs.comms[c.comm].members;  // empty for MPI_COMM_SELF
  const std::uint32_t n = static_cast<std::uint32_t>(ranks.size());
  std::vector<Member> out(n);
  std::uint32_t root = n;
  for (std::uint32_t i = 0; i < n; ++i)
    if (ranks[i] == c.root) root = i;
  if (root == n) return {};
  for (std::uint32_t k = 0; k < c.count && c.first + k < t.collective_members.size(); ++k) {
    const CollectiveMember& m = t.collective_members[c.first + k];
    if (m.rank >= t.rank_count() || m.record >= t.ranks[m.rank].collectives.size()) continue;
    const RankTrace& rt = t.ranks[m.rank];
    const CollectiveRecord& rec = rt.collectives[m.record];
    if (rec.begin == kNone || rec.end == kNone) continue;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (ranks[i] != m.rank) continue;
      Member& x = out[(i + n - root) % n];
      x = Member{rt.events[rec.begin].time, rt.events[rec.end].time, true};
    }
  }
  return out;
}

// Binomial reduce/gather: member v receives from v + mask (each mask below v's lowest set bit)
// before it sends; bcast/scatter: member v receives from v − lowbit(v) before anything else.
bool contradicts_binomial(const std::vector<Member>& m, bool towards_root) {
  const std::uint32_t n = static_cast<std::uint32_t>(m.size());
  for (std::uint32_t v = 1; v < n; ++v) {
    if (!m[v].present) continue;
    const std::uint32_t low = v & (~v + 1);
    if (towards_root) {
      for (std::uint32_t mask = 1; mask < low && v + mask < n; mask <<= 1)
        if (m[v + mask].present && m[v].end < m[v + mask].begin) return true;
    } else if (const std::uint32_t parent = v - low; parent != 0 && m[parent].present && m[v].end < m[parent].begin) {
      return true;
    }
  }
  return false;
}

}  // namespace

CollectiveAlgorithms calibrate_collectives(const Trace& trace, std::vector<std::string>& evidence) {
  CollectiveAlgorithms a;
  std::array<std::uint64_t, kCollectiveFamilyCount> seen{}, contradicted{};
  for (const CollectiveInstance& c : trace.collectives) {
    if (!c.complete || c.root == kNone || c.comm >= trace.defs.comms.size()) continue;
    const CollectiveFamily f = family_of(c.op);
    const bool towards_root = f == CollectiveFamily::Reduce || f == CollectiveFamily::Gather;
    if (!towards_root && f != CollectiveFamily::Bcast && f != CollectiveFamily::Scatter) continue;
    if (a.by_family[static_cast<int>(f)] != CollectiveAlgorithm::Binomial) continue;
    ++seen[static_cast<int>(f)];
    contradicted[static_cast<int>(f)] += contradicts_binomial(members(trace, c), towards_root);
  }
  for (int f = 0; f < kCollectiveFamilyCount; ++f) {
    if (contradicted[f] == 0) continue;
    a.by_family[f] = CollectiveAlgorithm::Linear;
    evidence.push_back(
        fmt::format("{}: linear, as {} of {} instances show a member leaving before the member a "
                    "binomial tree makes it wait for had entered",
                    to_string(static_cast<CollectiveFamily>(f)), contradicted[f], seen[f]));
  }
  return a;
}

}  // namespace wisp
