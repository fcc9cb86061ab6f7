// A dense value per (call path, rank), the shape of every per-call-path analysis result.
// Slot 0 is the program root (time outside every region, Scalasca's call-tree root); call path
// c has slot c + 1. Rank-major, so that a per-rank pass touches one contiguous row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

inline std::uint32_t slot_of(CallpathId cp) { return cp == kNone ? 0 : cp + 1; }
inline CallpathId callpath_of_slot(std::uint32_t slot) { return slot == 0 ? kNone : slot - 1; }

struct CallpathMatrix {
  std::uint32_t slots = 0;  // call paths + 1 (the program root)
  std::uint32_t ranks = 0;
  std::vector<double> values;

  CallpathMatrix() = default;
  CallpathMatrix(std::uint32_t slot_count, std::uint32_t rank_count)
      : slots(slot_count), ranks(rank_count), values(std::size_t(slot_count) * rank_count, 0.0) {}
  explicit CallpathMatrix(const Trace& trace)
      : CallpathMatrix(static_cast<std::uint32_t>(trace.defs.callpaths.size() + 1), trace.rank_count()) {}

  double& at(std::uint32_t slot, Rank r) { return values[std::size_t(r) * slots + slot]; }
  double at(std::uint32_t slot, Rank r) const { return values[std::size_t(r) * slots + slot]; }
  double* row(Rank r) { return values.data() + std::size_t(r) * slots; }
  const double* row(Rank r) const { return values.data() + std::size_t(r) * slots; }
  // Sum over all ranks of one slot.
  double total(std::uint32_t slot) const;
  // Sum of every value.
  double sum() const;
};

// Spread over processes: every process's rows of its ranks (`shares`, by process) join `m` on every
// process, which then holds the whole matrix; a process whose matrix is empty (no values) sends
// none, and `m` is empty only if every process's is.
void gather_rows(CallpathMatrix& m, ProcessGroup& group, const std::vector<RankShare>& shares);

}  // namespace wisp
