// A cache of freed small blocks in front of malloc for the replay's simulation process. SimGrid
// allocates and frees dozens of small objects per simulated message (activities, actions, route
// vectors, simcall lists), in bursts of one per rank, so glibc's per-thread cache (7 blocks per
// size) misses and most of them take malloc's slow paths. Once enabled, freed blocks of up to
// 1 KiB stay on per-class free lists and are reused; they are never given back (the process ends
// with the simulation). Disabled, these are malloc and free. The library never replaces the global
// operator new: an executable that wants the cache links src/replay/global_allocator.cpp.
#include "allocation_cache.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace wisp::replay_impl {

namespace {

// Class k holds blocks of at least 16 k - 8 usable bytes (malloc's chunk of 16 k bytes less its
// header: glibc's own classes). Small requests are rounded up to their class's size, so a block
// returns to the class it was drawn for, whether the delete tells its size or not.
constexpr std::size_t kGranule = 16;
constexpr std::size_t kLargest = 1024 - 8;
constexpr std::size_t kClasses = (kLargest + 8) / kGranule + 1;

std::size_t class_of_request(std::size_t size) { return (size + 8 + kGranule - 1) / kGranule; }
std::size_t class_of_block(std::size_t usable) { return (usable + 8) / kGranule; }
std::size_t class_size(std::size_t k) { return k * kGranule - 8; }

struct FreeBlock {
  FreeBlock* next;
};

std::atomic<bool> enabled{false};
thread_local FreeBlock* free_lists[kClasses] = {};

void release(void* p, std::size_t k) {
  FreeBlock*& head = free_lists[k];
  head = new (p) FreeBlock{head};
}

}  // namespace

void* cached_allocate(std::size_t size) {
  if (size <= kLargest) {
    const std::size_t k = class_of_request(size);
    if (enabled.load(std::memory_order_relaxed)) {
      if (FreeBlock* b = free_lists[k]) {
        free_lists[k] = b->next;
        return b;
      }
    }
    size = class_size(k);
  }
  for (;;) {
    if (void* p = std::malloc(size)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void cached_release(void* p) {
  if (!p) return;
  if (enabled.load(std::memory_order_relaxed)) {
    const std::size_t usable = malloc_usable_size(p);
    if (usable <= kLargest) return release(p, class_of_block(usable));
  }
  std::free(p);
}

void cached_release(void* p, std::size_t size) {
  if (!p) return;
  if (size <= kLargest && enabled.load(std::memory_order_relaxed)) return release(p, class_of_request(size));
  std::free(p);
}

void enable_allocation_cache() { enabled.store(true, std::memory_order_relaxed); }

}  // namespace wisp::replay_impl
