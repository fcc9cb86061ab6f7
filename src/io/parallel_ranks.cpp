// One task per rank on several threads. See parallel_ranks.hpp.
#include "parallel_ranks.hpp"

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace wisp::io {

namespace {

struct RankQueue {
  std::size_t ranks;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> failed;  // the lowest failed rank, `ranks` while none has failed
  std::mutex mutex;                 // guards the fields below and the calls of `done`
  std::exception_ptr error;         // of rank `failed`
  std::size_t done = 0;

  explicit RankQueue(std::size_t n) : ranks(n), failed(n) {}
};

void record_failure(RankQueue& q, std::size_t rank) {
  const std::lock_guard lock(q.mutex);
  if (rank >= q.failed.load()) return;
  q.failed.store(rank);
  q.error = std::current_exception();
}

// One thread's loop: takes the next rank until none is left or one has failed (the ranks not yet
// taken are all above it).
void work(RankQueue& q, const std::function<void(std::size_t, const RankStop&)>& task,
          const std::function<void(std::size_t)>& done) {
  for (;;) {
    const std::size_t r = q.next.fetch_add(1);
    if (r >= q.ranks || q.failed.load() < q.ranks) return;
    try {
      const RankStop stop(q.failed, r);
      task(r, stop);
      if (stop.requested()) continue;
      const std::lock_guard lock(q.mutex);
      done(++q.done);
    } catch (...) {
      record_failure(q, r);
    }
  }
}

}  // namespace

void for_each_rank(std::size_t ranks, unsigned threads, const std::function<void(std::size_t, const RankStop&)>& task,
                   const std::function<void(std::size_t)>& done) {
  RankQueue q(ranks);
  {
    std::vector<std::jthread> helpers;
    for (unsigned t = 1; t < threads; ++t) {
      try {
        helpers.emplace_back([&] { work(q, task, done); });
      } catch (const std::system_error&) {
        break;  // no more threads to be had: the ones started do the work
      }
    }
    work(q, task, done);
  }  // joins the helpers
  if (q.error) std::rethrow_exception(q.error);
}

}  // namespace wisp::io
