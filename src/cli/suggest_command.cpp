// `wisp suggest TRACE|SCENARIO.yaml [-o DIR] [--jobs N] [--top K] [--platform P] [--json] [--force]`:
// hypotheses from the analyses, simulated and ranked by gain (driver/suggest.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/suggest.hpp"

namespace wisp::cli {

void add_suggest_command(CLI::App& app) {
  auto o = std::make_shared<driver::SuggestVerbOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("suggest", "hypotheses from the analyses, simulated and ranked by gain");
  cmd->add_option("input", o->input,
                  "OTF2 trace (anchor file or directory), or a scenario file naming trace and platform")
      ->required();
  cmd->add_option("-o,--output", o->output, "output directory (default: wisp-suggest-NAME)");
  cmd->add_option("-j,--jobs", o->jobs, "hypotheses simulated in parallel")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--top", o->top, "call paths taken from each indicator")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--platform", o->platform, "calibrated (default) or a SimGrid XML platform file (trace input only)");
  cmd->add_flag("--json", *json, "print suggest.json instead of the text table");
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_flag("--no-interval", o->no_interval, "skip each hypothesis' gain interval (3 more replays each)");
  cmd->callback([o, json] { print(driver::suggest(*o), *json); });
}

}  // namespace wisp::cli
