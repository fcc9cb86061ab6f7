// `wisp merge PART... -o DIR [--force] [--json] [--no-traces]`: the slices of a sweep (`wisp run
// --points`, Slurm array tasks) combined into the outputs one `wisp run` of the sweep writes.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "sweep_outputs.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/scenario/sweep_parts.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> parts;
  std::string output;
  bool force = false;
  bool json = false;
  bool no_traces = false;
};

// The sweep the parts were made of, named as `wisp run` was given it; an edited file is an error.
Scenario scenario_of(const PartManifest& m) {
  Scenario s = load_scenario(m.scenario_path);
  if (part_manifest(s, m.trace, m.slice).digest != m.digest)
    throw Error(fmt::format("{}: the scenario file changed since the parts were made; rerun them", m.scenario_path));
  s.file = m.scenario;
  return s;
}

void merge(const Options& o) {
  const MergedSweep merged = merge_parts(std::vector<fs::path>(o.parts.begin(), o.parts.end()));
  const Scenario s = scenario_of(merged.manifest);
  AtomicDirectory out(o.output, o.force);
  if (!o.no_traces) write_best_traces(s, load_trace(s).trace, merged.result, out.staging());
  write_sweep_outputs(s, merged.manifest.trace, merged.result, out, o.json);
  throw_if_points_failed(merged.result, out.target());
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("merge", "combine the parts of a sweep (wisp run --points) into its outputs");
  cmd->add_option("parts", o->parts, "part directories (wisp run --points ... -o PART)")->required();
  cmd->add_option("-o,--output", o->output, "output directory")->required();
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_flag("--json", o->json, "print report.json instead of the text report");
  cmd->add_flag("--no-traces", o->no_traces, "skip replaying the best point for its scenario and identity traces");
  cmd->callback([o] { merge(*o); });
}

}  // namespace wisp::cli
