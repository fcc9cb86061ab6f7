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
  std::string describe;
};

void run(Options& o) {
  if (o.list_metrics) return (void)std::printf("%s", metric_catalogue_text().c_str());
  if (!o.describe.empty()) return (void)std::printf("%s", metric_description_text(o.describe).c_str());
  if (o.analyze.trace.empty()) throw UsageError("trace is required");
  print(driver::analyze(o.analyze), o.json, 1);
}

}  // namespace

Command analyze_command() {
  auto o = std::make_shared<Options>();
  driver::AnalyzeOptions& a = o->analyze;
  Command cmd{"analyze",
              "wait states, critical path, delay costs, near-critical paths and MBM, wait estimate, POP factors of a "
              "trace"};
  cmd.option("trace", a.trace,
             "OTF2 anchor file or the directory holding it (required unless --list-metrics or --describe)");
  cmd.option("--list-metrics", o->list_metrics,
             "print the metric catalogue (name, parent, unit, analysis, description)");
  cmd.option("--describe", o->describe,
             "print what METRIC measures and how to read it (Scalasca's description and diagnosis) and exit");
  cmd.option("--partitions", a.partitions,
             "partition file: lines 'name: ranks' (default: derived from user call paths)");
  cmd.option("--delay-rules", a.delay_rules,
             "scalasca: delay costs as Scalasca 2.6 computes them (default); paper: paper 004 as written")
      .one_of({"scalasca", "paper"});
  cmd.option("--json", o->json, "print JSON instead of text");
  cmd.option("--detail", a.detail, "also every metric in Scalasca's tree (text) and the per-segment lists (JSON)");
  cmd.option("-o,--output", a.output,
             "also write analysis.json, analysis.txt, pop_windows.csv, report.html and analysis.cubex (Cube 4) into "
             "this directory");
  cmd.option("--no-cube", a.no_cube, "-o: leave out analysis.cubex");
  cmd.option("--html-window", a.html_window,
             "START:END [s]: report-window.html shows the full detail of this window (cut to the size limit)");
  cmd.option("--html-limit", a.html_limit_mb,
             "-o: report.html's size limit [MB]; above it the timeline is a summary and report-window.html holds the "
             "full detail of a window")
      .non_negative()
      .show_default();
  cmd.option("--chrome-trace", a.chrome_trace, "also write the trace's timeline to FILE (Chrome/Perfetto trace JSON)");
  cmd.option("--force", a.force, "replace an existing output directory");
  cmd.option("--top", a.top, "rows per table in the text output").show_default();
  cmd.option("--k", a.k, "near-critical paths: the K longest (default 10 unless --nc is given)");
  cmd.option("--nc", a.nc, "near-critical paths within PERCENT % of the critical path (with --k: at most K)");
  cmd.option("--window", a.window,
             "POP windows of SECONDS (fixed; merged if --min-events is given; default: adaptive)");
  cmd.option("--min-events", a.min_events,
             "merge POP windows until every rank has N MPI events in each (default 3 for the adaptive windows; 0: "
             "no merging)");
  cmd.option("--ideal-network", a.ideal_network,
             "ideal-network runtime of the POP factors: clock (replay of the trace's dependencies) or simgrid "
             "(SimGrid replay on an ideal platform)")
      .one_of({"clock", "simgrid"})
      .show_default();
  cmd.option("--eager-limit", a.eager_limit, "largest message the ideal network sends eagerly [bytes]").show_default();
  cmd.option("--analyses", a.analyses,
             "only these analyses, comma-separated (wait_states, critical_path and delays always run; pag, "
             "wait_estimate, pop: default all)");
  cmd.run = [o] { run(*o); };
  return cmd;
}

}  // namespace wisp::cli
