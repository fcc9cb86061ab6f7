// JSON as text, for every JSON document and fragment wisp writes. Names that come from a trace or
// the file system (regions, paradigms, the program, the trace's path) are bytes that need not be
// UTF-8: a Latin-1 path, a corrupt string definition. nlohmann::json's plain dump() throws on them
// (type_error.316); json_text writes each byte that is not valid UTF-8 as U+FFFD instead.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace wisp {

// j.dump(indent) that never throws on invalid UTF-8 (indent -1: one line, no spaces).
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace wisp
