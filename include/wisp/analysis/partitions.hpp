// Process partitions for the inter-/intra-partition imbalance costs (paper 000 §II-D): given by
// the user as named rank sets, or derived from the trace. Derivation rule: ranks that execute
// exactly the same set of user-function call paths (region kind User, visited at least once) form
// one partition; MPI call paths do not separate partitions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/analysis/profile.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct Partitions {
  std::vector<std::string> names;      // one per partition
  std::vector<std::uint32_t> of_rank;  // partition index of every rank
  std::string origin;                  // "derived from user call paths" or the file name
};

Partitions derive_partitions(const Trace& trace, const Profile& profile);

// Partition file text: one partition per line, "name: rank set" ("mesh: 0-3,8"); '#' starts a
// comment; blank lines are ignored. Every rank must be in exactly one partition. Throws
// wisp::Error "<source>:<line>: ..." on malformed lines, unknown or repeated ranks, and
// "<source>: ..." when ranks are missing.
Partitions parse_partitions(std::string_view text, const std::string& source, std::uint32_t rank_count);

}  // namespace wisp
