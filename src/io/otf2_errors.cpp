// OTF2 error capture. See otf2_errors.hpp.
#include "otf2_errors.hpp"

#include <cstdarg>
#include <cstdio>

#include "wisp/error.hpp"

namespace wisp::io {

Otf2ErrorScope::Otf2ErrorScope() { previous_ = OTF2_Error_RegisterCallback(&on_error, this); }

Otf2ErrorScope::~Otf2ErrorScope() { OTF2_Error_RegisterCallback(previous_, nullptr); }

OTF2_ErrorCode Otf2ErrorScope::on_error(void* self, const char*, uint64_t, const char*,
                                        OTF2_ErrorCode code, const char* format, va_list args) {
  auto* scope = static_cast<Otf2ErrorScope*>(self);
  if (scope && scope->first_.empty()) {
    char buffer[512];
    std::vsnprintf(buffer, sizeof buffer, format ? format : "", args);
    scope->first_ = std::string(OTF2_Error_GetDescription(code)) + (buffer[0] ? ": " : "") + buffer;
  }
  return code;
}

void check_otf2(OTF2_ErrorCode code, const std::string& context, const Otf2ErrorScope& scope) {
  if (code == OTF2_SUCCESS) return;
  const std::string detail =
      scope.first_message().empty() ? OTF2_Error_GetDescription(code) : scope.first_message();
  throw Error(context + ": " + detail);
}

}  // namespace wisp::io
