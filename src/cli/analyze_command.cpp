// `wisp analyze TRACE [options]`: analyzer I (wait states, critical path with imbalance and
// performance impact, delay costs) and analyzer II (near-critical paths and MBM, minimum-based
// wait estimate, POP factors over time), as text tables or JSON, optionally written to a directory.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/analysis/timeline.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/pop_report.hpp"
#include "wisp/report/trace_analysis_report.hpp"
#include "wisp/replay/ideal_platform.hpp"

namespace wisp::cli {

namespace {

struct Options {
  std::string trace;
  std::string partitions;
  std::string output;
  std::string chrome_trace;
  bool json = false;
  bool force = false;
  bool list_metrics = false;
  bool detail = false;  // JSON with the per-segment lists (critical-path segments)
  // Integers are read signed, so that a negative value is an error rather than a huge number.
  long long top = 20;
  long long k = NearCriticalQuery::kDefaultK;
  double nc = 0;
  double window = 0;
  long long min_events = WindowChoice::kDefaultMinEvents;
  std::string ideal_network = "clock";
  std::string delay_rules = "scalasca";
  long long eager_limit = 65536;
  // Which of the optional ones were given.
  CLI::Option* k_given = nullptr;
  CLI::Option* nc_given = nullptr;
  CLI::Option* window_given = nullptr;
  CLI::Option* min_events_given = nullptr;
};

std::string read_text(const std::string& path) {
  auto text = read_file(path);
  if (!text) throw Error("cannot read partitions file '" + path + "'");
  return std::move(*text);
}

// The analyses' options from the command line, checked before the trace is read; throws
// wisp::Error naming a bad value.
TraceAnalysisOptions analysis_options(const Options& o) {
  TraceAnalysisOptions options;
  if (o.top < 0) throw Error(fmt::format("--top {}: the number of rows must not be negative", o.top));
  if (*o.k_given) {
    // The search takes time O(k · activities): the same cap as for an --nc query alone.
    const auto most = static_cast<long long>(options.paths.limit);
    if (o.k < 1 || o.k > most)
      throw Error(fmt::format("--k {}: the number of near-critical paths must be between 1 and {}", o.k, most));
    options.paths.k = static_cast<std::size_t>(o.k);
  }
  if (*o.nc_given) {
    if (!(o.nc >= 0 && o.nc <= 100))
      throw Error(fmt::format("--nc {}: the near-critical percentage must be between 0 and 100", o.nc));
    options.paths.nc_percent = o.nc;
  }
  if (*o.window_given) {
    if (!(o.window > 0) || !std::isfinite(o.window))
      throw Error(fmt::format("--window {}: the window length must be a positive number of seconds", o.window));
    options.windows.length = o.window;
  }
  if (*o.min_events_given) {
    if (o.min_events < 0 || o.min_events > 1000000)
      throw Error(fmt::format("--min-events {}: the number of MPI events must be between 0 and 1000000", o.min_events));
    options.windows.min_events = static_cast<std::uint32_t>(o.min_events);
  }
  if (o.eager_limit < 0) throw Error(fmt::format("--eager-limit {}: the limit must not be negative", o.eager_limit));
  options.pop.eager_limit = static_cast<std::uint64_t>(o.eager_limit);
  return options;
}

// The metric catalogue as a table: name, parent, unit, analysis, description.
std::string metric_list() {
  std::string out = fmt::format("{:<32} {:<26} {:<6} {:<14} {}\n", "metric", "parent", "unit", "analysis", "description");
  for (const MetricInfo& m : metric_catalogue())
    out += fmt::format("{:<32} {:<26} {:<6} {:<14} {}\n", m.name, m.parent.empty() ? "-" : m.parent, m.unit,
                       analysis_key(m.analysis), m.description);
  return out;
}

void run(const Options& o) {
  if (o.list_metrics) {
    std::printf("%s", metric_list().c_str());
    return;
  }
  if (o.trace.empty()) throw CLI::RequiredError("trace");
  TraceAnalysisOptions options = analysis_options(o);
  const Trace trace = read_otf2(o.trace);
  if (!o.partitions.empty())
    options.wait_paths.partitions = parse_partitions(read_text(o.partitions), o.partitions, trace.rank_count());
  options.wait_paths.delay_rules = o.delay_rules == "paper" ? DelayRules::Paper : DelayRules::Scalasca;
  if (o.ideal_network == "simgrid") {
    options.pop.ideal_runtime = simulate_ideal_network(trace, options.pop.eager_limit).runtime;
    options.pop.ideal_runtime_source = "SimGrid replay on the ideal platform";
  }
  options.keep_graph = false;  // the reports need the results only: the timeline takes the graph's place
  const TraceAnalysis analysis = analyze_trace(trace, options);
  const nlohmann::json json = trace_analysis_json(trace, o.trace, analysis, o.detail);
  const std::string text = trace_analysis_text(trace, o.trace, analysis, static_cast<std::size_t>(o.top));
  if (!o.output.empty() || !o.chrome_trace.empty()) {
    const Timeline timeline = build_timeline(trace, analysis.wait_paths);
    if (!o.chrome_trace.empty()) write_file_atomically(o.chrome_trace, chrome_trace_json({{"measured", &timeline}}));
    if (!o.output.empty()) {
      AtomicDirectory dir(o.output, o.force);
      write_file_atomically(dir.staging() / "analysis.json", json_text(json) + "\n");  // compact; the terminal indented
      write_file_atomically(dir.staging() / "analysis.txt", text);
      write_file_atomically(dir.staging() / "pop_windows.csv", pop_windows_csv(analysis.pop.windows));
      write_file_atomically(dir.staging() / "report.html", [&](std::ostream& out) {
        write_analysis_html(out, o.trace, trace, analysis, timeline);
      });
      dir.commit();
    }
  }
  std::printf("%s", o.json ? (json_text(json, 1) + "\n").c_str() : text.c_str());
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "wait states, critical path, delay costs, near-critical paths and MBM, wait estimate, POP factors of a trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it (required unless --list-metrics)");
  cmd->add_flag("--list-metrics", o->list_metrics, "print the metric catalogue (name, parent, unit, analysis, description)");
  cmd->add_option("--partitions", o->partitions,
                  "partition file: lines 'name: ranks' (default: derived from user call paths)");
  cmd->add_option("--delay-rules", o->delay_rules,
                  "scalasca: delay costs as Scalasca 2.6 computes them (default); paper: paper 004 as written")
      ->check(CLI::IsMember({"scalasca", "paper"}));
  cmd->add_flag("--json", o->json, "print JSON instead of text");
  cmd->add_flag("--detail", o->detail, "JSON: also the per-segment lists (critical-path segments)");
  cmd->add_option("-o,--output", o->output,
                  "also write analysis.json, analysis.txt, pop_windows.csv and report.html into this directory");
  cmd->add_option("--chrome-trace", o->chrome_trace, "also write the trace's timeline to FILE (Chrome/Perfetto trace JSON)");
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_option("--top", o->top, "rows per table in the text output")->capture_default_str();
  o->k_given = cmd->add_option("--k", o->k, "near-critical paths: the K longest (default 10 unless --nc is given)");
  o->nc_given = cmd->add_option("--nc", o->nc, "near-critical paths within PERCENT % of the critical path (with --k: at most K)");
  o->window_given = cmd->add_option("--window", o->window,
                                    "POP windows of SECONDS (fixed; merged if --min-events is given; default: adaptive)");
  o->min_events_given = cmd->add_option(
      "--min-events", o->min_events,
      "merge POP windows until every rank has N MPI events in each (default 3 for the adaptive windows; 0: no merging)");
  cmd->add_option("--ideal-network", o->ideal_network,
                  "ideal-network runtime of the POP factors: clock (replay of the trace's dependencies) or simgrid "
                  "(SimGrid replay on an ideal platform)")
      ->check(CLI::IsMember({"clock", "simgrid"}))
      ->capture_default_str();
  cmd->add_option("--eager-limit", o->eager_limit, "largest message the ideal network sends eagerly [bytes]")
      ->capture_default_str();
  cmd->callback([o] { run(*o); });
}

}  // namespace wisp::cli
