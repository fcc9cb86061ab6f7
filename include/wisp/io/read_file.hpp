// Reading a whole file into a string: platforms, scenarios, partitions and sweep results are
// small text files read at once. Callers word their own error, so a file that cannot be opened
// gives no value rather than an exception.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace wisp {

// The file's whole content, or no value if it cannot be opened.
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace wisp
