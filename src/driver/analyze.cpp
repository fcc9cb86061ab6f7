// `wisp analyze`. See analyze.hpp.
#include "wisp/driver/analyze.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/analysis/timeline.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/driver/analysis_runner.hpp"
#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/report_views.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/ideal_platform.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/cube_report.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/pop_report.hpp"
#include "wisp/report/trace_analysis_report.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp::driver {

namespace {

std::string read_text(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) throw Error("cannot read partitions file '" + path.string() + "'");
  return std::move(*text);
}

// --analyses KEY,KEY...: every key one of the catalogue's.
std::vector<std::string> analysis_list(const std::string& text) {
  std::vector<std::string> keys;
  std::stringstream in(text);
  for (std::string key; std::getline(in, key, ',');) {
    const auto& known = analysis_keys();
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw Error(fmt::format("--analyses: unknown analysis '{}' (known: {})", key, fmt::join(known, ", ")));
    keys.push_back(key);
  }
  return keys;
}

// The analyses' options, checked before the trace is read.
TraceAnalysisOptions analysis_options(const AnalyzeOptions& o) {
  TraceAnalysisOptions options;
  if (o.top < 0) throw Error(fmt::format("--top {}: the number of rows must not be negative", o.top));
  if (o.k) {
    // The search takes time O(k · activities): the same cap as for an --nc query alone.
    const auto most = static_cast<long long>(options.paths.limit);
    if (*o.k < 1 || *o.k > most)
      throw Error(fmt::format("--k {}: the number of near-critical paths must be between 1 and {}", *o.k, most));
    options.paths.k = static_cast<std::size_t>(*o.k);
  }
  if (o.nc) {
    if (!(*o.nc >= 0 && *o.nc <= 100))
      throw Error(fmt::format("--nc {}: the near-critical percentage must be between 0 and 100", *o.nc));
    options.paths.nc_percent = *o.nc;
  }
  if (o.window) {
    if (!(*o.window > 0) || !std::isfinite(*o.window))
      throw Error(fmt::format("--window {}: the window length must be a positive number of seconds", *o.window));
    options.windows.length = *o.window;
  }
  if (o.min_events) {
    if (*o.min_events < 0 || *o.min_events > 1000000)
      throw Error(
          fmt::format("--min-events {}: the number of MPI events must be between 0 and 1000000", *o.min_events));
    options.windows.min_events = static_cast<std::uint32_t>(*o.min_events);
  }
  if (o.eager_limit < 0) throw Error(fmt::format("--eager-limit {}: the limit must not be negative", o.eager_limit));
  options.pop.eager_limit = static_cast<std::uint64_t>(o.eager_limit);
  options.wait_paths.delay_rules = o.delay_rules == "paper" ? DelayRules::Paper : DelayRules::Scalasca;
  if (!o.analyses.empty()) options.parts = analysis_parts(analysis_list(o.analyses));
  return options;
}

// analysis.json (compact; the terminal gets it indented), analysis.txt, pop_windows.csv, report.html
// (and report-window.html) of `views`, analysis.cubex; a warning about the cube, if any, goes to `warnings`.
void write_directory(const AnalyzeOptions& o, const TraceSummary& summary, const TraceAnalysis& analysis,
                     const nlohmann::json& json, const std::string& text, const ReportViews& views,
                     std::vector<std::string>& warnings) {
  AtomicDirectory dir(o.output, o.force);
  if (!o.no_cube)
    if (std::string w = write_cube(dir.staging() / "analysis.cubex", summary, cube_table(summary, analysis),
                                   "wisp analyze " + o.trace.string());
        !w.empty())
      warnings.push_back(std::move(w));
  write_file_atomically(dir.staging() / "analysis.json", json_text(json) + "\n");
  write_file_atomically(dir.staging() / "analysis.txt", text);
  write_file_atomically(dir.staging() / "pop_windows.csv",
                        pop_windows_csv(analysis.pop ? analysis.pop->windows : std::vector<PopWindow>{}));
  write_file_atomically(dir.staging() / "report.html", [&](std::ostream& out) {
    write_analysis_html(out, o.trace.string(), summary, analysis, views.shown.front(), views.note);
  });
  if (!views.window.empty())
    write_file_atomically(dir.staging() / "report-window.html", [&](std::ostream& out) {
      write_analysis_html(out, o.trace.string(), summary, analysis, views.window.front(), views.window_note);
    });
  dir.commit();
}

// Under mpirun/srun: every process reads its share of the ranks and the analyses run spread over
// the processes (analyze_trace with the group), and so do report.html's timelines; process 0
// reports, the others print nothing.
Written analyze_over_mpi(const AnalyzeOptions& o, TraceAnalysisOptions options) {
  if (!o.chrome_trace.empty() || o.ideal_network == "simgrid")
    throw Error(
        "wisp analyze over MPI processes: --chrome-trace and --ideal-network simgrid need the whole trace in one "
        "process (run wisp analyze without mpirun/srun)");
  const MpiSession session;
  const std::unique_ptr<ProcessGroup> group = mpi_process_group(session);
  const bool root = group->process() == 0;
  // One process per core: each reads and analyses its share on one thread; one process alone has
  // every core (the whole trace: analyze_trace runs as without mpirun).
  const bool alone = group->processes() == 1;
  ReadOptions read;
  if (!alone) {
    read.group = group.get();
    read.threads = 1;
  }
  const Trace trace = read_otf2(o.trace, read);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const RankShare held = trace.held();
  spdlog::debug("analyze, process {}: read ranks {}-{} ({} events), peak RSS so far {} MB", group->process(),
                held.first, held.last - 1, trace.event_count(), usage.ru_maxrss / 1024);
  if (!o.partitions.empty())
    options.wait_paths.partitions =
        parse_partitions(read_text(o.partitions), o.partitions.string(), trace.rank_count());
  const auto processes = static_cast<std::uint32_t>(group->processes());
  if (root && processes > trace.rank_count())
    spdlog::info("wisp analyze: {} processes for a trace of {} ranks: {} of them have no rank to analyse", processes,
                 trace.rank_count(), processes - trace.rank_count());
  AnalysisRunner runner(alone ? 0 : 1, group.get());  // 0: every core
  const TraceAnalysis analysis = analyze_trace(trace, options, *group, runner);
  const TraceSummary summary = summary_over(trace, *group);
  ReportViews views;  // report.html's timelines, made where the events are (timeline_spread.hpp)
  if (!o.output.empty())
    views = report_views(trace, analysis.wait_paths, *group, o.html_limit_mb * 1e6, parse_html_window(o.html_window));
  if (!root) return {};
  const std::string source = o.trace.string();
  Written w{trace_analysis_json(summary, source, analysis, o.detail),
            trace_analysis_text(summary, source, analysis, static_cast<std::size_t>(o.top), o.detail),
            {},
            {},
            {}};
  if (!o.output.empty()) write_directory(o, summary, analysis, w.json, w.text, views, w.warnings);
  return w;
}

}  // namespace

Written analyze(const AnalyzeOptions& o) {
  parse_html_window(o.html_window);  // a bad window is refused before the work
  TraceAnalysisOptions options = analysis_options(o);
  if (launched_by_mpi()) return analyze_over_mpi(o, options);
  const std::string source = o.trace.string();
  const Trace trace = read_otf2(o.trace);
  if (!o.partitions.empty())
    options.wait_paths.partitions =
        parse_partitions(read_text(o.partitions), o.partitions.string(), trace.rank_count());
  if (o.ideal_network == "simgrid") {
    options.pop.ideal_runtime = simulate_ideal_network(trace, options.pop.eager_limit).runtime;
    options.pop.ideal_runtime_source = "SimGrid replay on the ideal platform";
  }
  AnalysisRunner cores;
  const TraceAnalysis analysis = analyze_trace(trace, options, cores);
  Written w{trace_analysis_json(trace, source, analysis, o.detail),
            trace_analysis_text(trace, source, analysis, static_cast<std::size_t>(o.top), o.detail),
            {},
            {},
            {}};
  if (!o.output.empty()) {  // report.html within its size limit (report_views.hpp)
    const ReportViews views = report_views({&trace}, {&analysis.wait_paths}, o.html_limit_mb * 1e6,
                                           !o.chrome_trace.empty(), parse_html_window(o.html_window));
    if (!o.chrome_trace.empty())
      write_file_atomically(o.chrome_trace, chrome_trace_json({{"measured", &views.whole()[0]}}));
    write_directory(o, TraceSummary(trace), analysis, w.json, w.text, views, w.warnings);
  } else if (!o.chrome_trace.empty()) {
    const Timeline timeline = build_timeline(trace, analysis.wait_paths);
    write_file_atomically(o.chrome_trace, chrome_trace_json({{"measured", &timeline}}));
  }
  return w;
}

}  // namespace wisp::driver
