// OTF2 error capture. See otf2_errors.hpp.
#include "otf2_errors.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "wisp/error.hpp"

namespace wisp::io {

Otf2ErrorScope::Otf2ErrorScope() {
  first_.emplace_back(std::this_thread::get_id(), std::string());
  previous_ = OTF2_Error_RegisterCallback(&on_error, this);
}

Otf2ErrorScope::~Otf2ErrorScope() { OTF2_Error_RegisterCallback(previous_, nullptr); }

OTF2_ErrorCode Otf2ErrorScope::on_error(void* self, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                                        const char* format, va_list args) {
  // OTF2's description of the code ("No space left on device", "Invalid or inconsistent record
  // data"); its internal detail ("This is no chunk header!") would only confuse a user.
  auto* scope = static_cast<Otf2ErrorScope*>(self);
  (void)format;
  (void)args;
  if (!scope) return code;
  const std::lock_guard lock(scope->mutex_);
  const auto me = std::this_thread::get_id();
  auto it = std::find_if(scope->first_.begin(), scope->first_.end(), [&](const auto& f) { return f.first == me; });
  if (it == scope->first_.end())
    scope->first_.emplace_back(me, OTF2_Error_GetDescription(code));
  else if (it->second.empty())
    it->second = OTF2_Error_GetDescription(code);
  return code;
}

std::string Otf2ErrorScope::first_message() const {
  const std::lock_guard lock(mutex_);
  if (!first_.front().second.empty()) return first_.front().second;
  const auto me = std::this_thread::get_id();
  for (const auto& [thread, message] : first_)
    if (thread == me) return message;
  return {};
}

void check_otf2(OTF2_ErrorCode code, const std::string& context, const Otf2ErrorScope& scope) {
  if (code == OTF2_SUCCESS) return;
  const std::string first = scope.first_message();
  const std::string detail = first.empty() ? OTF2_Error_GetDescription(code) : first;
  throw Error(context + ": " + detail);
}

void check_event_file(OTF2_ErrorCode code, std::uint64_t read, std::uint64_t declared, const std::string& context,
                      const Otf2ErrorScope& scope) {
  const std::string what = context + ": corrupt or truncated event file";
  if (code == OTF2_ERROR_FILE_INTERACTION || code == OTF2_ERROR_FILE_CAN_NOT_OPEN) check_otf2(code, what, scope);
  if (code != OTF2_SUCCESS || read < declared)
    throw Error(
        fmt::format("{}: its records end or break before the {} events the definitions declare", what, declared));
}

void check_side_event_file(OTF2_ErrorCode code, std::uint64_t read, std::uint64_t declared, const std::string& context,
                           const Otf2ErrorScope& scope) {
  if (code == OTF2_SUCCESS && read < declared) {
    spdlog::warn("{}: its event file holds {} of the {} events its definition declares: the {} present are read",
                 context, read, declared, read);
    return;
  }
  check_event_file(code, read, declared, context, scope);
}

}  // namespace wisp::io
