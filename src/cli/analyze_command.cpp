// `wisp analyze TRACE [options]`: the wait-path and activity-graph analyses of a trace as text
// tables or JSON, optionally written to a directory (driver/analyze.hpp).
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "wisp/driver/analyze.hpp"
#include "wisp/report/trace_analysis_report.hpp"

namespace wisp::cli {

namespace {

struct Options {
  driver::AnalyzeOptions analyze;
  bool json = false;
  bool list_metrics = false;
  long long k = 0, min_events = 0;  // the optional ones, given when their CLI::Option counts
  double nc = 0, window = 0;
  CLI::Option *k_given = nullptr, *nc_given = nullptr, *window_given = nullptr, *min_events_given = nullptr;
};

void run(Options& o) {
  if (o.list_metrics) return (void)std::printf("%s", metric_catalogue_text().c_str());
  if (o.analyze.trace.empty()) throw CLI::RequiredError("trace");
  if (*o.k_given) o.analyze.k = o.k;
  if (*o.nc_given) o.analyze.nc = o.nc;
  if (*o.window_given) o.analyze.window = o.window;
  if (*o.min_events_given) o.analyze.min_events = o.min_events;
  print(driver::analyze(o.analyze), o.json, 1);
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  driver::AnalyzeOptions& a = o->analyze;
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "wait states, critical path, delay costs, near-critical paths and MBM, wait estimate, POP factors of a trace");
  cmd->add_option("trace", a.trace, "OTF2 anchor file or the directory holding it (required unless --list-metrics)");
  cmd->add_flag("--list-metrics", o->list_metrics,
                "print the metric catalogue (name, parent, unit, analysis, description)");
  cmd->add_option("--partitions", a.partitions,
                  "partition file: lines 'name: ranks' (default: derived from user call paths)");
  cmd->add_option("--delay-rules", a.delay_rules,
                  "scalasca: delay costs as Scalasca 2.6 computes them (default); paper: paper 004 as written")
      ->check(CLI::IsMember({"scalasca", "paper"}));
  cmd->add_flag("--json", o->json, "print JSON instead of text");
  cmd->add_flag("--detail", a.detail, "JSON: also the per-segment lists (critical-path segments)");
  cmd->add_option("-o,--output", a.output,
                  "also write analysis.json, analysis.txt, pop_windows.csv and report.html into this directory");
  cmd->add_option("--chrome-trace", a.chrome_trace,
                  "also write the trace's timeline to FILE (Chrome/Perfetto trace JSON)");
  cmd->add_flag("--force", a.force, "replace an existing output directory");
  cmd->add_option("--top", a.top, "rows per table in the text output")->capture_default_str();
  o->k_given = cmd->add_option("--k", o->k, "near-critical paths: the K longest (default 10 unless --nc is given)");
  o->nc_given =
      cmd->add_option("--nc", o->nc, "near-critical paths within PERCENT % of the critical path (with --k: at most K)");
  o->window_given = cmd->add_option(
      "--window", o->window, "POP windows of SECONDS (fixed; merged if --min-events is given; default: adaptive)");
  o->min_events_given = cmd->add_option("--min-events", o->min_events,
                                        "merge POP windows until every rank has N MPI events in each (default 3 for "
                                        "the adaptive windows; 0: no merging)");
  cmd->add_option("--ideal-network", a.ideal_network,
                  "ideal-network runtime of the POP factors: clock (replay of the trace's dependencies) or simgrid "
                  "(SimGrid replay on an ideal platform)")
      ->check(CLI::IsMember({"clock", "simgrid"}))
      ->capture_default_str();
  cmd->add_option("--eager-limit", a.eager_limit, "largest message the ideal network sends eagerly [bytes]")
      ->capture_default_str();
  cmd->callback([o] { run(*o); });
}

}  // namespace wisp::cli
