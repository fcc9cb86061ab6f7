// The candidates of the near-critical paths' best-first search (and the query's bounds) (paper 001 §3.3): the best
// `capacity` by (cost, offer order), which is all the search can still pop. Shared by the search in
// one process and over processes (near_critical.cpp). Internal to the analysis layer.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <vector>

#include "wisp/analysis/near_critical.hpp"
#include "wisp/error.hpp"

namespace wisp {

struct Candidate {
  Ticks cost;
  std::uint64_t seq;  // insertion order: deterministic among equal costs
  std::uint32_t parent;
  std::uint32_t deviation;
  std::uint32_t part = 0;  // spread over processes: the part of the graph holding the deviation
  bool operator<(const Candidate& o) const { return cost != o.cost ? cost < o.cost : seq < o.seq; }
};

// The best (lowest-cost) candidates, at most `capacity` of them.
class BoundedCandidates {
 public:
  void set_capacity(std::size_t c) {
    capacity_ = c;
    while (set_.size() > capacity_) set_.erase(std::prev(set_.end()));
  }
  void offer(Ticks cost, std::uint32_t parent, std::uint32_t deviation, std::uint32_t part = 0) {
    if (capacity_ == 0) return;
    if (set_.size() >= capacity_) {
      if (!(cost < std::prev(set_.end())->cost)) return;
      set_.erase(std::prev(set_.end()));
    }
    set_.insert(Candidate{cost, seq_++, parent, deviation, part});
  }
  bool empty() const { return set_.empty(); }
  // Whether offer(cost, ...) would keep it.
  bool accepts(Ticks cost) const {
    return capacity_ > 0 && (set_.size() < capacity_ || cost < std::prev(set_.end())->cost);
  }
  // Every candidate, by (cost, offer order); leaves none.
  std::vector<Candidate> take() {
    std::vector<Candidate> all(set_.begin(), set_.end());
    set_.clear();
    return all;
  }
  Candidate pop() {
    const Candidate c = *set_.begin();
    set_.erase(set_.begin());
    return c;
  }

 private:
  std::set<Candidate> set_;
  std::size_t capacity_ = 0;
  std::uint64_t seq_ = 0;
};

// A query's number of paths to find and its largest slack (d_cp - d_j) for a critical path of
// `length`; throws wisp::Error on a query that asks for nothing.
struct SearchBounds {
  std::size_t target;
  Ticks nc_bound;
};
inline SearchBounds search_bounds(const NearCriticalQuery& q, Ticks length) {
  if (q.k && *q.k == 0) throw Error("near-critical paths: k must be at least 1");
  if (q.nc_percent && !(*q.nc_percent >= 0 && *q.nc_percent <= 100))
    throw Error("near-critical paths: nc % must be between 0 and 100");
  if (!q.k && q.nc_percent && q.limit == 0) throw Error("near-critical paths: the path limit must be at least 1");
  return {q.k ? *q.k : (q.nc_percent ? q.limit : NearCriticalQuery::kDefaultK),
          q.nc_percent ? static_cast<Ticks>(std::floor(static_cast<long double>(length) * *q.nc_percent / 100.0L))
                       : std::numeric_limits<Ticks>::max()};
}

}  // namespace wisp
