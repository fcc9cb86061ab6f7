// `wisp run SCENARIO.yaml [-o DIR] [--jobs N] [--json] [--force] [--chrome-trace FILE] ...`: the
// what-if question of a scenario file answered (driver/run.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/run.hpp"

namespace wisp::cli {

Command run_command() {
  auto o = std::make_shared<driver::RunOptions>();
  auto json = std::make_shared<bool>(false);
  Command cmd{"run", "answer a scenario's what-if question: replays, analyses, estimated gain"};
  cmd.option("scenario", o->scenario, "scenario file (YAML, see scenarios/README.md)").required();
  cmd.option("-o,--output", o->output, "output directory (default: the scenario's output, else wisp-NAME)");
  cmd.option("-j,--jobs", o->jobs, "sweep points run in parallel").within(1, 256).show_default();
  cmd.option("--json", *json, "print report.json instead of the text report");
  cmd.option("--force", o->force, "replace an existing output directory");
  cmd.option("--chrome-trace", o->chrome_trace,
             "also write the measured, identity and scenario timelines to FILE (Chrome/Perfetto trace JSON)");
  cmd.option("--top", o->top, "report.txt: rows per metric of the call-path comparison").non_negative().show_default();
  cmd.option("--points", o->points, "sweeps: run points A-B only and write them as a part for wisp merge");
  cmd.option("--resume", o->resume, "sweeps: continue the part of an earlier run (DIR.partial, or the --points part)");
  cmd.option("--slurm-array", o->slurm_array, "sweeps: write Slurm job-array scripts of N tasks and a merge job")
      .within(1, 100000);
  cmd.option("--detail", o->detail,
             "print the per-metric call-path tables (as report.txt) instead of the largest changes; report.json: "
             "also the analyses' per-segment lists");
  cmd.option("--no-interval", o->no_interval,
             "skip the gain interval (its two cost hypotheses are replayed beside the point: 3 more replays)");
  cmd.option("--no-cube", o->no_cube,
             "leave out identity.cubex, scenario.cubex and difference.cubex (Cube 4: the analyses of the simulated "
             "traces and scenario - identity)");
  cmd.option("--html-window", o->html_window,
             "START:END [s]: report-window.html shows the full detail of this window (cut to the size limit)");
  cmd.option("--html-limit", o->html_limit_mb,
             "report.html's size limit [MB]: above it the timelines are a summary and report-window.html holds the "
             "full detail of a window")
      .non_negative()
      .show_default();
  cmd.run = [o, json] { print(driver::run(*o), *json); };
  return cmd;
}

}  // namespace wisp::cli
