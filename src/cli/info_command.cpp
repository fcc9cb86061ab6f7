// `wisp info TRACE [--json] [--regions]`: what a trace contains; --regions: its flat profile.
#include <memory>

#include "commands.hpp"
#include "wisp/driver/info.hpp"

namespace wisp::cli {

Command info_command() {
  auto o = std::make_shared<driver::InfoOptions>();
  Command cmd{"info", "ranks, events, regions, communicators, messages, anomalies of a trace"};
  cmd.option("trace", o->trace, "OTF2 anchor file or the directory holding it").required();
  cmd.option("--json", o->json, "print JSON instead of text (it holds the flat profile too)");
  cmd.option("--regions", o->regions, "print the flat profile: exclusive time, visits and paradigm per region");
  cmd.run = [o] { print(driver::info(*o), o->json); };
  return cmd;
}

}  // namespace wisp::cli
