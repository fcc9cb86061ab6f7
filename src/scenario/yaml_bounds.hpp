// A scenario file's YAML graph bounded before any key is read: yaml-cpp expands an alias (*name)
// wherever it is used, so a recursive alias (`trace: &a [*a]`) makes every walk endless and ten
// levels of ten aliases make one of 10^10 nodes. Both, and nesting deeper than kYamlDepth, are
// refused with FILE:LINE:COL.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace wisp {

inline constexpr std::size_t kYamlNodes = 100000;  // nodes of the document with every alias expanded
inline constexpr std::size_t kYamlDepth = 64;      // levels of lists and maps

// Throws wisp::Error "FILE:LINE:COL: ..." for a recursive alias, an expansion beyond kYamlNodes or
// nesting deeper than kYamlDepth.
void check_yaml_bounds(const YAML::Node& root, const std::string& file);

}  // namespace wisp
