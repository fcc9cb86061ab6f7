// `wisp calibrate TRACE -o platform.xml`: a SimGrid platform fitted to the trace (driver/calibrate.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/calibrate.hpp"

namespace wisp::cli {

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<driver::CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "fit a SimGrid platform (latency, bandwidth, overheads, eager threshold) to a trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it")->required();
  cmd->add_option("-o,--output", o->output, "platform XML file to write")->required();
  cmd->add_flag("--force", o->force, "replace an existing file");
  cmd->callback([o] { print(driver::calibrate(*o), false); });
}

}  // namespace wisp::cli
