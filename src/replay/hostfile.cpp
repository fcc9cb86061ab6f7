// Reading an MPI hostfile (`name` or `name:N` a line, # comments). See replay.hpp.
#include "wisp/replay/replay.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace wisp {

std::vector<std::string> read_hostfile(const std::filesystem::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "r");
  if (!f) throw Error(fmt::format("hostfile {}: cannot open the file", file.string()));
  std::vector<std::string> hosts;
  char buffer[4096];
  std::size_t line = 0;
  while (std::fgets(buffer, sizeof buffer, f)) {
    ++line;
    std::string text(buffer);
    if (const auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) continue;
    text = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
    std::uint64_t count = 1;
    if (const auto colon = text.rfind(':'); colon != std::string::npos) {
      const std::string n = text.substr(colon + 1);
      char* end = nullptr;
      count = std::strtoull(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || count == 0 || count > 1000000) {
        std::fclose(f);
        throw Error(
            fmt::format("hostfile {} line {}: '{}' is not like name or name:N (N >= 1)", file.string(), line, text));
      }
      text.resize(colon);
    }
    hosts.insert(hosts.end(), count, text);
  }
  std::fclose(f);
  if (hosts.empty()) throw Error(fmt::format("hostfile {}: no host names", file.string()));
  return hosts;
}

}  // namespace wisp
