// The benchmarks' timing: a call's wall time and the median of several (a shared machine is noisy,
// so every figure is a median of rounds, never one run).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace wisp::bench {

// Wall time of fn() in seconds.
inline double seconds_of(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The middle value (the upper one of an even count); 0 if there is none.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace wisp::bench
