// The simulation process's allocation cache (src/replay/allocation_cache.cpp, routed to by the
// global operator new of src/replay/global_allocator.cpp, linked into this test too): freed small blocks
// come back for requests of their size class, always large enough, whether the delete tells the
// size or not. Enabling is for good, so each check runs in a forked child.
#include <malloc.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "replay/allocation_cache.hpp"
#include "wisp/process/child_process.hpp"

namespace {

// Runs `check` in a child with the cache enabled; its return value is the child's exit code.
int in_child(const std::function<int()>& check) {
  const pid_t pid = wisp::start_child([&] {
    wisp::replay_impl::enable_allocation_cache();
    return check();
  });
  const wisp::ChildExit end = wisp::wait_for_child(pid);
  return end.exited ? end.code : 100 + end.signal;
}

}  // namespace

TEST_CASE("a freed block serves the next request of its size class, sized or unsized delete") {
#ifdef WISP_SANITIZED
  // Under the sanitizers AddressSanitizer's operator new/delete stay in place: no cache to test.
  WARN("SKIPPED: the allocation cache is off in sanitizer builds");
  return;
#endif
  CHECK(in_child([] {
          void* a = ::operator new(40);  // class of 33..40 bytes (a 48-byte chunk)
          std::memset(a, 1, 40);
          ::operator delete(a, 40);
          void* b = ::operator new(33);
          if (b != a) return 1;
          ::operator delete(b);  // unsized: classed by its usable size
          void* c = ::operator new(40);
          if (c != a) return 2;
          ::operator delete(c, 40);
          void* d = ::operator new(41);  // the next class: not this block
          if (d == a) return 3;
          void* e = ::operator new(24);  // the class below: not this block either
          if (e == a) return 4;
          ::operator delete(d, 41);
          ::operator delete(e, 24);
          return 0;
        }) == 0);
}

TEST_CASE("cached blocks are always large enough, for every small size and both deletes") {
  CHECK(in_child([] {
          std::vector<void*> blocks;
          for (int round = 0; round < 3; ++round) {
            for (std::size_t size = 0; size <= 1100; ++size) {
              void* p = ::operator new(size);
              if (malloc_usable_size(p) < size) return 1;
              std::memset(p, static_cast<int>(size), size);
              blocks.push_back(p);
            }
            for (std::size_t i = 0; i < blocks.size(); ++i) {
              if (i % 2 == 0)
                ::operator delete(blocks[i], i);
              else
                ::operator delete(blocks[i]);
            }
            blocks.clear();
          }
          return 0;
        }) == 0);
}

TEST_CASE("standard containers work on the cache") {
  CHECK(in_child([] {
          std::vector<std::string> words;
          for (int i = 0; i < 20000; ++i)
            words.push_back(std::string(static_cast<std::size_t>(i % 300), 'x') + std::to_string(i));
          std::size_t total = 0;
          for (const auto& w : words) total += w.size();
          words.clear();
          words.shrink_to_fit();
          std::vector<std::vector<int>> nested(1000);
          for (std::size_t i = 0; i < nested.size(); ++i) nested[i].assign(i % 200, static_cast<int>(i));
          for (std::size_t i = 0; i < nested.size(); ++i)
            for (int v : nested[i])
              if (v != static_cast<int>(i)) return 1;
          return total > 0 ? 0 : 2;
        }) == 0);
}
