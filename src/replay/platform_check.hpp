// SimGrid aborts (or allocates without bound) on some platform files: a speed or bandwidth of 0,
// a negative or NaN latency, an unknown routing, a cluster radical of 10^8 hosts. wisp checks
// these attributes first, so that such a file is one error naming the file and line.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "platform_xml.hpp"

namespace wisp::replay_impl {

// Throws wisp::Error("platform FILE line N: ...") for the first bad attribute of the elements.
void check_platform_xml(const std::vector<XmlElement>& elements, const std::filesystem::path& file);

}  // namespace wisp::replay_impl
