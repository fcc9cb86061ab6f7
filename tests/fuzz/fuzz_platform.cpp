// libFuzzer target: the platform reader (SimGrid XML with wisp:* properties, checked before
// SimGrid sees it). Bad input must end in wisp::Error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "wisp/error.hpp"
#include "wisp/replay/platform.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("wisp-fuzz-platform-" + std::to_string(getpid()) + ".xml");
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    wisp::load_platform(file);
  } catch (const wisp::Error&) {}
  return 0;
}
