// OTF2 error capture: while an Otf2ErrorScope lives, OTF2's own error messages are collected
// instead of printed, so wisp can turn them into one clear line naming the file and place.
#pragma once

#include <otf2/otf2.h>

#include <string>

namespace wisp::io {

class Otf2ErrorScope {
 public:
  Otf2ErrorScope();
  ~Otf2ErrorScope();
  Otf2ErrorScope(const Otf2ErrorScope&) = delete;
  Otf2ErrorScope& operator=(const Otf2ErrorScope&) = delete;

  // The first message OTF2 reported in this scope ("" if none).
  const std::string& first_message() const { return first_; }

 private:
  static OTF2_ErrorCode on_error(void* self, const char* file, uint64_t line, const char* function,
                                 OTF2_ErrorCode code, const char* format, va_list args);
  OTF2_ErrorCallback previous_;
  std::string first_;
};

// Throws wisp::Error("<context>: <OTF2 description>") unless `code` is OTF2_SUCCESS.
void check_otf2(OTF2_ErrorCode code, const std::string& context, const Otf2ErrorScope& scope);

}  // namespace wisp::io
