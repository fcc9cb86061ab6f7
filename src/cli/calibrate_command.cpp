// `wisp calibrate TRACE -o platform.xml`: a SimGrid platform fitted to the trace (driver/calibrate.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/calibrate.hpp"

namespace wisp::cli {

Command calibrate_command() {
  auto o = std::make_shared<driver::CalibrateOptions>();
  Command cmd{"calibrate", "fit a SimGrid platform (latency, bandwidth, overheads, eager threshold) to a trace"};
  cmd.option("trace", o->trace, "OTF2 anchor file or the directory holding it").required();
  cmd.option("-o,--output", o->output, "platform XML file to write").required();
  cmd.option("--force", o->force, "replace an existing file");
  cmd.run = [o] { print(driver::calibrate(*o), false); };
  return cmd;
}

}  // namespace wisp::cli
