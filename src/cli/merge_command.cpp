// `wisp merge PART... -o DIR [--force] [--json] [--no-traces]`: the slices of a sweep combined into
// the outputs one `wisp run` of the sweep writes (driver/merge.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/merge.hpp"

namespace wisp::cli {

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<driver::MergeOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("merge", "combine the parts of a sweep (wisp run --points) into its outputs");
  cmd->add_option("parts", o->parts, "part directories (wisp run --points ... -o PART)")->required();
  cmd->add_option("-o,--output", o->output, "output directory")->required();
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_flag("--json", *json, "print report.json instead of the text report");
  cmd->add_flag("--no-traces", o->no_traces, "skip replaying the best point for its scenario and identity traces");
  cmd->callback([o, json] { print(driver::merge(*o), *json); });
}

}  // namespace wisp::cli
