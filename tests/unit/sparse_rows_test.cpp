// Sparse CSR rows (sparse_rows.hpp) give every row the range the dense begins give, across word
// boundaries, for empty and full rows, and for no rows at all.
#include <catch2/catch.hpp>

#include <random>

#include "wisp/analysis/sparse_rows.hpp"

using namespace wisp;

TEST_CASE("sparse rows: the ranges of the dense CSR begins") {
  std::mt19937 rng(17);
  for (std::uint32_t rows : {0u, 1u, 63u, 64u, 65u, 200u, 4097u}) {
    for (int density : {0, 1, 10, 100}) {
      std::vector<std::uint32_t> begin{0};
      for (std::uint32_t r = 0; r < rows; ++r)
        begin.push_back(begin.back() + (static_cast<int>(rng() % 100) < density ? 1 + rng() % 5 : 0));
      const SparseRows s = sparse_rows(begin);
      INFO(rows << " rows, density " << density << " %");
      for (std::uint32_t r = 0; r < rows; ++r) {
        const auto [first, end] = s.range(r);
        CHECK(end - first == begin[r + 1] - begin[r]);
        if (end > first) CHECK(first == begin[r]);
        CHECK(s.size(r) == begin[r + 1] - begin[r]);
      }
    }
  }
}
