// OTF2 error capture: while an Otf2ErrorScope lives, OTF2's own error messages are collected
// instead of printed, so wisp can turn them into one clear line naming the file and place. OTF2
// may report on any thread (the reader's threads): messages are kept per thread, under a lock.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace wisp::io {

class Otf2ErrorScope {
 public:
  Otf2ErrorScope();
  ~Otf2ErrorScope();
  Otf2ErrorScope(const Otf2ErrorScope&) = delete;
  Otf2ErrorScope& operator=(const Otf2ErrorScope&) = delete;

  // The first message OTF2 reported in this scope on the thread that opened it, else the first
  // on the calling thread ("" if none): with one thread, the scope's first message.
  std::string first_message() const;

 private:
  static OTF2_ErrorCode on_error(void* self, const char* file, uint64_t line, const char* function, OTF2_ErrorCode code,
                                 const char* format, va_list args);
  OTF2_ErrorCallback previous_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::thread::id, std::string>> first_;  // per thread, the opener's first
};

// Throws wisp::Error("<context>: <OTF2 description>") unless `code` is OTF2_SUCCESS.
void check_otf2(OTF2_ErrorCode code, const std::string& context, const Otf2ErrorScope& scope);

// After reading a location's event file (`read` of `declared` events): throws wisp::Error
// "<context>: corrupt or truncated event file: ..." if OTF2 failed or stopped short. A file that
// could not be read names OTF2's reason; one that ends or breaks inside its records gets the
// same line whatever OTF2 made of it (OTF2 3.0 decodes a short last chunk together with
// uninitialised buffer bytes, so where it stops and why is not repeatable).
void check_event_file(OTF2_ErrorCode code, std::uint64_t read, std::uint64_t declared, const std::string& context,
                      const Otf2ErrorScope& scope);

// The same for a location wisp reads but does not replay (a thread, a stream, a metric location):
// an event file whose records end cleanly before the events its definition declares is read as
// far as it goes (otf2-print reads such archives), and a one-line warning names the location and
// both counts. A broken file stays an error; so does a rank's master location (check_event_file).
void check_side_event_file(OTF2_ErrorCode code, std::uint64_t read, std::uint64_t declared, const std::string& context,
                           const Otf2ErrorScope& scope);

}  // namespace wisp::io
