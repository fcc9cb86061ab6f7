// One task per rank on several threads, with the outcome a plain loop over the ranks would have:
// the exception of the lowest rank that fails is the one rethrown, and progress counts ranks done.
// The OTF2 reader reads the ranks' event files this way (src/io/README.md, "Reading in parallel").
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

namespace wisp::io {

// Tells a rank's task whether a lower rank's task has failed: its own result is then unused, and
// it may return at once.
class RankStop {
 public:
  RankStop(const std::atomic<std::size_t>& failed, std::size_t rank) : failed_(&failed), rank_(rank) {}
  bool requested() const { return failed_->load(std::memory_order_relaxed) < rank_; }

 private:
  const std::atomic<std::size_t>* failed_;
  std::size_t rank_;
};

// Runs task(r, stop) for every rank r < ranks on `threads` threads (the calling thread is one),
// ranks taken in increasing order, and after each rank's task done(ranks done so far), one call at
// a time. After a task throws, no further rank is started; once every thread has ended, the
// exception of the lowest failed rank is rethrown.
void for_each_rank(std::size_t ranks, unsigned threads, const std::function<void(std::size_t, const RankStop&)>& task,
                   const std::function<void(std::size_t)>& done);

}  // namespace wisp::io
