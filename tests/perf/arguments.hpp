// The benchmarks' command-line lists: "8x8" or "3720,18600" as numbers.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace wisp::bench {

// The numbers of `text` between `separator`s ("8x8" with 'x', "64,256" with ',').
inline std::vector<std::uint32_t> numbers(const char* text, char separator) {
  std::vector<std::uint32_t> out;
  for (const char* p = text; p && *p; p = std::strchr(p, separator) ? std::strchr(p, separator) + 1 : nullptr)
    out.push_back(static_cast<std::uint32_t>(std::atol(p)));
  return out;
}

}  // namespace wisp::bench
