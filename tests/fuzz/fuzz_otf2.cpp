// libFuzzer target: the OTF2 reader and the definitions mapping. A small archive written by wisp
// is the template; the first input byte picks one of its files (anchor, global definitions, a
// rank's local definitions, a rank's events) and the rest replaces that file. Bad input must end
// in wisp::Error; the anchor goes through the crash-isolating probe first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

namespace fs = std::filesystem;

namespace {

const char* const kFiles[] = {"traces.otf2",  "traces.def",   "traces/0.def",
                              "traces/1.def", "traces/0.evt", "traces/1.evt"};

fs::path template_dir, work_dir;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const fs::path base = fs::temp_directory_path() / ("wisp-fuzz-otf2-" + std::to_string(getpid()));
  template_dir = base / "template";
  work_dir = base / "work";
  fs::remove_all(base);
  wisp::gen::ImbalanceOptions o;
  o.ranks = 2;
  o.iterations = 3;
  wisp::write_otf2(wisp::gen::generate_imbalance(o), template_dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  fs::remove_all(work_dir);
  fs::copy(template_dir, work_dir, fs::copy_options::recursive);
  const char* target = kFiles[data[0] % std::size(kFiles)];
  std::ofstream(work_dir / target, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  try {
    wisp::read_otf2(work_dir);
  } catch (const wisp::Error&) {}
  return 0;
}
