// Rank sets as users write them: "0-15,32" (lists and inclusive ranges, in any order).
// Used by generators, scenario selections and partition files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

// Sorted, duplicate-free ranks. Throws wisp::Error naming the offending part when the text is
// malformed, a range is reversed, or a rank is not below `rank_count`.
std::vector<Rank> parse_rank_set(std::string_view text, std::uint32_t rank_count);

// The inverse: compact text ("0-3,7").
std::string format_rank_set(const std::vector<Rank>& ranks);

}  // namespace wisp
