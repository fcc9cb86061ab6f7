// Reading a whole file into a string. See read_file.hpp.
#include "wisp/io/read_file.hpp"

#include <fstream>
#include <sstream>

namespace wisp {

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace wisp
