// Reuse of freed small blocks in the simulation process (allocation_cache.cpp).
#pragma once

namespace wisp::replay_impl {

// From now on, freed blocks of up to 1 KiB stay cached for reuse. Only for a single-purpose
// process that ends soon (the replay's forked child): the memory is never returned.
void enable_allocation_cache();

}  // namespace wisp::replay_impl
