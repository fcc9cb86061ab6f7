// Sparse CSR rows. See sparse_rows.hpp.
#include "wisp/analysis/sparse_rows.hpp"

namespace wisp {

std::uint32_t count_before(const std::vector<std::uint64_t>& marks, std::vector<std::uint32_t>& before) {
  before.resize(marks.size());
  std::uint32_t count = 0;
  for (std::size_t w = 0; w < marks.size(); ++w) {
    before[w] = count;
    count += static_cast<std::uint32_t>(std::popcount(marks[w]));
  }
  return count;
}

SparseRows sparse_rows(const std::vector<std::uint32_t>& dense_begin) {
  SparseRows s;
  const std::size_t rows = dense_begin.empty() ? 0 : dense_begin.size() - 1;
  s.marks.assign((rows + 63) / 64, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    if (dense_begin[r + 1] == dense_begin[r]) continue;
    s.marks[r / 64] |= std::uint64_t{1} << (r % 64);
    s.begin.push_back(dense_begin[r]);
  }
  count_before(s.marks, s.before);
  s.begin.push_back(rows == 0 ? 0 : dense_begin[rows]);
  s.begin.shrink_to_fit();
  return s;
}

}  // namespace wisp
