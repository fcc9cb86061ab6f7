// `wisp run SCENARIO.yaml [-o DIR] [--jobs N] [--json] [--force] [--chrome-trace FILE] ...`: the
// what-if question of a scenario file answered (driver/run.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/run.hpp"

namespace wisp::cli {

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<driver::RunOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("run", "answer a scenario's what-if question: replays, analyses, estimated gain");
  cmd->add_option("scenario", o->scenario, "scenario file (YAML, see scenarios/README.md)")->required();
  cmd->add_option("-o,--output", o->output, "output directory (default: the scenario's output, else wisp-NAME)");
  cmd->add_option("-j,--jobs", o->jobs, "sweep points run in parallel")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--json", *json, "print report.json instead of the text report");
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_option("--chrome-trace", o->chrome_trace,
                  "also write the measured, identity and scenario timelines to FILE (Chrome/Perfetto trace JSON)");
  cmd->add_option("--top", o->top, "report.txt: rows per metric of the call-path comparison")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--points", o->points, "sweeps: run points A-B only and write them as a part for wisp merge");
  cmd->add_flag("--resume", o->resume,
                "sweeps: continue the part of an earlier run (DIR.partial, or the --points part)");
  cmd->add_option("--slurm-array", o->slurm_array, "sweeps: write Slurm job-array scripts of N tasks and a merge job")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--detail", o->detail,
                "print the per-metric call-path tables (as report.txt) instead of the largest changes; report.json: "
                "also the analyses' per-segment lists");
  cmd->add_flag("--no-interval", o->no_interval,
                "skip the gain interval (its two cost hypotheses are replayed beside the point: 3 more replays)");
  cmd->callback([o, json] { print(driver::run(*o), *json); });
}

}  // namespace wisp::cli
