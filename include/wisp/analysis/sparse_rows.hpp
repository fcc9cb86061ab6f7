// The row ranges of a CSR index whose rows are mostly empty (a PAG's vertices: about one in ten
// has a message or collective dependency). A bit per row says whether it has items; only the
// non-empty rows keep their begin, found by counting the set bits before the row (a 32-bit count
// per 64 rows plus one popcount). About 0.2 bytes per row instead of 4.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

namespace wisp {

struct SparseRows {
  std::vector<std::uint64_t> marks;   // bit r % 64 of word r / 64: row r has items
  std::vector<std::uint32_t> before;  // per word: the non-empty rows before it
  std::vector<std::uint32_t> begin;   // per non-empty row, its first item; then the item count

  static constexpr std::uint32_t kEmpty = 0xffffffff;

  bool has_items(std::uint32_t r) const { return marks[r >> 6] >> (r & 63) & 1; }
  // Row r's place among the non-empty rows, kEmpty if it is empty.
  std::uint32_t index(std::uint32_t r) const {
    const std::uint64_t word = marks[r >> 6], bit = std::uint64_t{1} << (r & 63);
    return word & bit ? before[r >> 6] + static_cast<std::uint32_t>(std::popcount(word & (bit - 1))) : kEmpty;
  }
  std::uint32_t nonempty_count() const { return begin.empty() ? 0 : static_cast<std::uint32_t>(begin.size() - 1); }

  // [first, end) of row r's items.
  std::pair<std::uint32_t, std::uint32_t> range(std::uint32_t r) const {
    const std::uint32_t i = index(r);
    return i == kEmpty ? std::pair<std::uint32_t, std::uint32_t>{0, 0} : std::pair{begin[i], begin[i + 1]};
  }
  std::uint32_t size(std::uint32_t r) const {
    const auto [first, end] = range(r);
    return end - first;
  }
  std::uint64_t memory_bytes() const { return marks.capacity() * 8 + before.capacity() * 4 + begin.capacity() * 4; }
};

// From dense CSR begins (rows + 1 of them, the last = item count).
SparseRows sparse_rows(const std::vector<std::uint32_t>& dense_begin);

// Sets before[w] to the set bits of marks[0..w) (before has marks' size); returns all set bits.
// What SparseRows::index() and other bit-per-vertex sets (ChainTails) count with.
std::uint32_t count_before(const std::vector<std::uint64_t>& marks, std::vector<std::uint32_t>& before);

}  // namespace wisp
