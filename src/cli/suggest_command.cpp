// `wisp suggest TRACE|SCENARIO.yaml [-o DIR] [--jobs N] [--top K] [--platform P] [--json] [--force]`:
// hypotheses from the analyses, simulated and ranked by gain (driver/suggest.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/suggest.hpp"

namespace wisp::cli {

Command suggest_command() {
  auto o = std::make_shared<driver::SuggestVerbOptions>();
  auto json = std::make_shared<bool>(false);
  Command cmd{"suggest", "hypotheses from the analyses, simulated and ranked by gain"};
  cmd.option("input", o->input, "OTF2 trace (anchor file or directory), or a scenario file naming trace and platform")
      .required();
  cmd.option("-o,--output", o->output, "output directory (default: wisp-suggest-NAME)");
  cmd.option("-j,--jobs", o->jobs, "hypotheses simulated in parallel").within(1, 256).show_default();
  cmd.option("--top", o->top, "call paths taken from each indicator").within(1, 100).show_default();
  cmd.option("--platform", o->platform, "calibrated (default) or a SimGrid XML platform file (trace input only)");
  cmd.option("--json", *json, "print suggest.json instead of the text table");
  cmd.option("--force", o->force, "replace an existing output directory");
  cmd.option("--no-interval", o->no_interval, "skip each hypothesis' gain interval (3 more replays each)");
  cmd.run = [o, json] { print(driver::suggest(*o), *json); };
  return cmd;
}

}  // namespace wisp::cli
