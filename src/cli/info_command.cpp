// `wisp info TRACE [--json] [--regions]`: what a trace contains; --regions: its flat profile.
#include <memory>

#include "commands.hpp"
#include "wisp/driver/info.hpp"

namespace wisp::cli {

void add_info_command(CLI::App& app) {
  auto o = std::make_shared<driver::InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "ranks, events, regions, communicators, messages, anomalies of a trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it")->required();
  cmd->add_flag("--json", o->json, "print JSON instead of text (it holds the flat profile too)");
  cmd->add_flag("--regions", o->regions, "print the flat profile: exclusive time, visits and paradigm per region");
  cmd->callback([o] { print(driver::info(*o), o->json); });
}

}  // namespace wisp::cli
