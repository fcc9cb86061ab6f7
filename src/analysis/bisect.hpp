// std::lower_bound / std::upper_bound over the indices 0..n-1 of a sorted sequence given by
// key(i), for sequences that are computed, not stored (POP's breakpoints and MPI event times).
// (std::ranges over std::views::iota would do, but clang 14 cannot compile that with libstdc++ 12.)
#pragma once

#include <cstddef>

namespace wisp {

// The first i with !(key(i) < x), n if none.
template <typename Key>
std::size_t lower_index(std::size_t n, double x, Key&& key) {
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (key(mid) < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The first i with x < key(i), n if none.
template <typename Key>
std::size_t upper_index(std::size_t n, double x, Key&& key) {
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (!(x < key(mid)))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace wisp
