// std::uint32_t shares. See rank_share.hpp.
#include "wisp/group/rank_share.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "wisp/group/pack.hpp"

namespace wisp {

int clamped_processes(std::size_t ranks, int processes) {
  return static_cast<int>(std::min<std::size_t>(ranks, static_cast<std::size_t>(std::max(processes, 1))));
}

// Process p's share starts at the first rank whose events before it reach p / n of the total
// (n the processes that get ranks), with at least one rank per process.
RankShare share_of(const std::vector<std::uint64_t>& events, int process, int processes) {
  const auto ranks = static_cast<std::uint32_t>(events.size());
  const int n = clamped_processes(ranks, processes);
  if (process >= n) return RankShare{ranks, ranks};
  // +1 per rank, so that ranks without events are spread too.
  const long double total = std::accumulate(events.begin(), events.end(), 0.0L) + ranks;
  const auto start = [&](int p) -> std::uint32_t {
    if (p <= 0) return 0;
    if (p >= n) return ranks;
    long double before = 0;
    std::uint32_t r = 0;
    while (r < ranks && before + (events[r] + 1) / 2.0L < total * p / n) before += events[r++] + 1;
    // at least one rank for each process before and after
    return std::clamp<std::uint32_t>(r, static_cast<std::uint32_t>(p), ranks - static_cast<std::uint32_t>(n - p));
  };
  std::uint32_t first = 0, last = 0;
  for (int p = 0; p <= process; ++p) {
    first = p == 0 ? 0 : last;
    last = std::max(first + 1, start(p + 1));
  }
  return RankShare{first, std::min(last, ranks)};
}

std::vector<RankShare> gather_shares(ProcessGroup& group, RankShare mine) {
  std::vector<RankShare> out;
  for (const std::string& packet : all_gather(group, packed(mine))) {
    Unpacker in(packet);
    out.push_back(in.get<RankShare>());
  }
  return out;
}

int owner_of(const std::vector<RankShare>& shares, std::uint32_t r) {
  const auto it =
      std::upper_bound(shares.begin(), shares.end(), r, [](std::uint32_t x, const RankShare& s) { return x < s.last; });
  return it == shares.end() ? -1 : static_cast<int>(it - shares.begin());
}

}  // namespace wisp
