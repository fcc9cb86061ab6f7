// The global operator new/delete of the wisp executable (and of the tests and benchmarks that
// measure or check the replay's allocation cache): routed to the cache of
// src/replay/allocation_cache.hpp, which stays plain malloc/free until a replay child enables it.
// Under the sanitizers AddressSanitizer's own operator new/delete stay in place.
#include <new>

#include "replay/allocation_cache.hpp"

#ifndef WISP_SANITIZED
using wisp::replay_impl::cached_allocate;
using wisp::replay_impl::cached_release;

void* operator new(std::size_t size) { return cached_allocate(size); }
void* operator new[](std::size_t size) { return cached_allocate(size); }
void operator delete(void* p) noexcept { cached_release(p); }
void operator delete[](void* p) noexcept { cached_release(p); }
void operator delete(void* p, std::size_t size) noexcept { cached_release(p, size); }
void operator delete[](void* p, std::size_t size) noexcept { cached_release(p, size); }
#endif
