// Reuse of freed small blocks in the replay's simulation process: a cache in front of malloc
// (src/replay/allocation_cache.cpp). The replay enables it in its forked child; it acts only in
// executables that route the global operator new/delete to it (src/replay/global_allocator.cpp) —
// the library itself never replaces them.
#pragma once

#include <cstddef>

namespace wisp::replay_impl {

// From now on, freed blocks of up to 1 KiB stay cached for reuse. Only for a single-purpose
// process that ends soon (the replay's forked child): the memory is never returned.
void enable_allocation_cache();

// malloc and free with the cache in front once it is enabled; allocation failure follows
// operator new (new_handler, then std::bad_alloc).
void* cached_allocate(std::size_t size);
void cached_release(void* p);
void cached_release(void* p, std::size_t size);

}  // namespace wisp::replay_impl
