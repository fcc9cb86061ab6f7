// What a verb produced, for the command line to print: the report as JSON and as text (what
// report.json and report.txt hold), the lines that follow it ("wrote DIR"), warnings to log after
// them, and for a sweep with failed points the one line to fail with once the rest is printed.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace wisp::driver {

struct Written {
  nlohmann::json json;  // null: the verb has no JSON form
  std::string text;
  std::string after;                  // printed after the text (not after the JSON)
  std::vector<std::string> warnings;  // one line each
  std::string failure;                // non-empty: exit with this error once printed
};

}  // namespace wisp::driver
