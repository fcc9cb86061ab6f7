// `wisp merge PART... -o DIR [--force] [--json] [--no-traces]`: the slices of a sweep combined into
// the outputs one `wisp run` of the sweep writes (driver/merge.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/merge.hpp"

namespace wisp::cli {

Command merge_command() {
  auto o = std::make_shared<driver::MergeOptions>();
  auto json = std::make_shared<bool>(false);
  Command cmd{"merge", "combine the parts of a sweep (wisp run --points) into its outputs"};
  cmd.option("parts", o->parts, "part directories (wisp run --points ... -o PART)").required();
  cmd.option("-o,--output", o->output, "output directory").required();
  cmd.option("--force", o->force, "replace an existing output directory");
  cmd.option("--json", *json, "print report.json instead of the text report");
  cmd.option("--no-traces", o->no_traces, "skip replaying the best point for its scenario and identity traces");
  cmd.run = [o, json] { print(driver::merge(*o), *json); };
  return cmd;
}

}  // namespace wisp::cli
