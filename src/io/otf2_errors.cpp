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
  // OTF2's description of the code ("No space left on device", "Invalid or inconsistent record
  // data"); its internal detail ("This is no chunk header!") would only confuse a user.
  auto* scope = static_cast<Otf2ErrorScope*>(self);
  (void)format;
  (void)args;
  if (scope && scope->first_.empty()) scope->first_ = OTF2_Error_GetDescription(code);
  return code;
}

void check_otf2(OTF2_ErrorCode code, const std::string& context, const Otf2ErrorScope& scope) {
  if (code == OTF2_SUCCESS) return;
  const std::string detail =
      scope.first_message().empty() ? OTF2_Error_GetDescription(code) : scope.first_message();
  throw Error(context + ": " + detail);
}

}  // namespace wisp::io
