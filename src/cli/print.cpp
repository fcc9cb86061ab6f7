// What a verb produced, on stdout. See commands.hpp.
#include <spdlog/spdlog.h>

#include <cstdio>

#include "commands.hpp"
#include "wisp/error.hpp"
#include "wisp/io/json_text.hpp"

namespace wisp::cli {

void print(const driver::Written& w, bool json, int indent) {
  const bool as_json = json && !w.json.is_null();
  if (as_json)
    std::printf("%s\n", json_text(w.json, indent).c_str());
  else
    std::printf("%s", w.text.c_str());
  std::fflush(stdout);  // the warnings on stderr follow what they are about
  for (const std::string& warning : w.warnings) spdlog::warn("{}", warning);
  if (!as_json) std::printf("%s", w.after.c_str());
  if (!w.failure.empty()) throw Error(w.failure);
}

}  // namespace wisp::cli
