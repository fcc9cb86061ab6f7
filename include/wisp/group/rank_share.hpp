// Which of a trace's ranks each process of a group holds: contiguous blocks with about the same
// number of events, so that results merged in process order are in rank order. Ranks are numbered
// as the trace numbers them (wisp::Rank, a std::uint32_t).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wisp/group/process_group.hpp"

namespace wisp {

// The trace ranks one process holds: [first, last), contiguous, so that results merged in process
// order are in rank order.
struct RankShare {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  bool owns(std::uint32_t r) const { return r >= first && r < last; }
  std::uint32_t size() const { return last - first; }
};

// Process `process` of `processes`: contiguous blocks of ranks with about the same number of
// events each (`events[r]`, as the definitions declare them). Processes beyond the rank count
// get empty shares (clamped_processes() says how many have ranks).
RankShare share_of(const std::vector<std::uint64_t>& events, int process, int processes);
int clamped_processes(std::size_t ranks, int processes);

// Collective: every process's share, by process; and the process whose share holds rank r.
std::vector<RankShare> gather_shares(ProcessGroup& group, RankShare mine);
int owner_of(const std::vector<RankShare>& shares, std::uint32_t r);

}  // namespace wisp
