// "Did you mean ...?": the known names closest to a misspelt one (edit distance, ignoring
// case), used for unknown scenario keys, transforms, analyses and region names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wisp {

// Up to `count` names from `known` within a small edit distance of `name`, closest first;
// names that contain `name` (or are contained in it) count as close too.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& known, std::size_t count);

// `name` as a message quotes it: at most `width` characters ("...(1048576 characters)" beyond).
std::string shortened(std::string_view name, std::size_t width = 80);

}  // namespace wisp
