// `wisp run`. See run.hpp.
#include "wisp/driver/run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <optional>

#include "wisp/analysis/timeline.hpp"
#include "wisp/driver/analysis_runner.hpp"
#include "wisp/driver/analysis_service.hpp"
#include "wisp/driver/exports.hpp"
#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/point_cubes.hpp"
#include "wisp/driver/report_views.hpp"
#include "wisp/driver/slurm_array.hpp"
#include "wisp/driver/sweep_outputs.hpp"
#include "wisp/driver/sweep_parts.hpp"
#include "wisp/driver/sweep_run.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/run_report.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp::driver {

namespace {

namespace fs = std::filesystem;

fs::path output_dir(const RunOptions& o, const Scenario& s) {
  if (!o.output.empty()) return o.output;
  if (!s.output.empty()) return s.output;
  return fs::path("wisp-" + s.name);
}

// report.html and, if asked, the Chrome trace: the timelines of the three traces (made as each
// trace was analysed: `views`). Within the page's size limit the timelines are whole; above it
// (report_views.hpp) report.html holds their summary and report-window.html the full detail of a window.
void write_views(const Scenario& s, const std::string& source, const PointEvaluation& p, const ReportViews& views,
                 AtomicDirectory& out, const RunOptions& o) {
  const std::vector<std::string> names = {"identity", "scenario", "measured"};
  auto named = [&](const std::vector<Timeline>& t) {
    std::vector<NamedTimeline> n;
    for (std::size_t i = 0; i < t.size(); ++i) n.push_back(NamedTimeline{names[i], &t[i]});
    return n;
  };
  write_file_atomically(out.staging() / "report.html",
                        [&](std::ostream& os) { write_point_html(os, s, source, p, named(views.shown), views.note); });
  if (!views.window.empty())
    write_file_atomically(out.staging() / "report-window.html", [&](std::ostream& os) {
      write_point_html(os, s, source, p, named(views.window), views.window_note);
    });
  if (!o.chrome_trace.empty())
    write_file_atomically(o.chrome_trace, chrome_trace_json({{"measured", &views.whole()[2]},
                                                             {"identity", &views.whole()[0]},
                                                             {"scenario", &views.whole()[1]}}));
}

// A simulated trace ("identity" or "scenario") as OTF2 beside the report, so that Vampir shows both.
void write_simulated_trace(const Scenario& s, const std::string& name, const Trace& trace, const fs::path& dir) {
  WriteOptions w;
  w.creator = "wisp run";
  w.description = name == "scenario" ? "scenario " + s.name + " simulated by wisp"
                                     : "identity of scenario " + s.name + " (the unchanged trace) simulated by wisp";
  write_otf2_into(trace, dir / (name + "-trace"), w);
}

// The scenario's `export:` (exports.hpp), inside the output directory.
void write_scenario_exports(const Scenario& s, const PointResult::Input& in, const ReplayResult& replayed,
                            AtomicDirectory& out, Written& written) {
  std::vector<ExportRequest> requests = s.exports;
  for (ExportRequest& r : requests) {
    r.path = out.staging() / r.path;
    fs::create_directories(r.path.parent_path());
  }
  write_exports(in.trace, in.platform, in.options, replayed.statistics, requests, false, written);
}

// The measured trace is handed to evaluate_point, which frees it as soon as it can.
Written run_single(const Scenario& s, ScenarioTrace in, AtomicDirectory& out, const RunOptions& o,
                   const TraceAnalyzer& analyzer) {
  const std::string lacking = records_not_written(in.trace);
  // Each trace is drawn, and each simulated one written, while it exists (evaluate_point drops it after).
  ReportViewsBuilder views({"identity", "scenario", "measured"}, o.html_limit_mb * 1e6, !o.chrome_trace.empty(),
                           parse_html_window(o.html_window));
  auto use = [&](const std::string& name, const Trace& trace, const TraceAnalysis& analysis) {
    if (name != "measured") write_simulated_trace(s, name, trace, out.staging());
    views.add(name, trace, analysis.wait_paths);
  };
  PointEvaluation p;
  try {
    p = evaluate_point(s, std::move(in.trace), use, analyzer);
  } catch (const ReplayDeadlock& e) {
    throw Error(fmt::format("{}: trace {}: {}", s.file.string(), in.source, e.what()));
  }
  Written exported;
  if (p.result.scenario_input)
    write_scenario_exports(s, *p.result.scenario_input, p.result.scenario_replay, out, exported);
  std::vector<std::string> cube_warnings;
  if (!o.no_cube) cube_warnings = write_point_cubes(p, out.staging(), "wisp run " + s.file.string());
  write_views(s, in.source, p, views.finish(), out, o);
  RunReportOptions report{o.detail, o.top};
  Written written = commit_report(point_json(s, in.source, p, report), point_text(s, in.source, p, report), out);
  report.summary = !o.detail;  // the screen: the largest changes, report.txt the tables
  written.text = point_text(s, in.source, p, report);
  written.warnings.insert(written.warnings.end(), cube_warnings.begin(), cube_warnings.end());
  written.warnings.insert(written.warnings.end(), exported.warnings.begin(), exported.warnings.end());
  if (!lacking.empty()) written.warnings.push_back("the simulated traces lack records wisp does not keep: " + lacking);
  return written;
}

// A sweep over MPI ranks or in slices: rank 0 keeps every finished point in a part directory (the
// output itself with --points, else DIR.partial, merged into DIR at the end and removed).
Written run_sharded(const Scenario& s, const RunOptions& o) {
  const MpiSession mpi;
  const bool root = mpi.rank() == 0;
  const bool slice_only = !o.points.empty();
  const fs::path target = output_dir(o, s);
  const fs::path part = slice_only ? target : fs::path(target.string() + ".partial");
  std::optional<AtomicDirectory> out;
  if (root && !slice_only) out.emplace(target, o.force);  // refuse an existing output before working
  const ScenarioTrace in = load_trace(s);
  if (root) {
    const std::size_t total = sweep_points(s).size();
    const PointSlice slice = slice_only ? parse_point_slice(o.points, total, "--points") : PointSlice{0, total};
    open_part(part, part_manifest(s, in.source, slice), o.resume, o.force);
  }
  const std::size_t computed = run_part(s, in.trace, part, o.jobs, mpi);
  if (!root) return {};
  if (slice_only)
    return Written{{}, {}, fmt::format("wrote {} ({} points computed)\n", part.string(), computed), {}, {}};
  const MergedSweep merged = merge_parts({part});
  write_best_traces(s, in.trace, merged.result, out->staging(), !o.no_cube);
  Written w = write_sweep_outputs(s, in.source, merged.result, *out);
  fs::remove_all(part);
  return w;
}

// `--slurm-array N`: the scripts only; nothing runs here.
Written write_slurm(const Scenario& s, const RunOptions& o) {
  AtomicDirectory out(output_dir(o, s), o.force);
  const SlurmArray a{fs::canonical("/proc/self/exe"),
                     fs::absolute(s.file).lexically_normal(),
                     fs::absolute(out.target()).lexically_normal(),
                     s.name,
                     sweep_points(s).size(),
                     o.slurm_array};
  write_slurm_scripts(a, out);
  return Written{
      {},
      {},
      fmt::format("wrote {}: bash {}/submit.sh queues {} array tasks and the merge into {}/result\n",
                  out.target().string(), a.dir.string(), split_points(a.points, a.tasks).size(), a.dir.string()),
      {},
      {}};
}

// Under mpirun/srun a single point replays on process 0; its analyses spread over every process.
Written run_point_once(const Scenario& s, const RunOptions& o) {
  const MpiSession mpi;
  const std::unique_ptr<ProcessGroup> group = mpi_process_group(mpi);
  AnalysisService service(*group);
  if (group->process() != 0) {
    service.serve();
    return {};
  }
  AtomicDirectory out(output_dir(o, s), o.force);
  ScenarioTrace in = load_trace(s);
  // The measured trace's shares are read from its files, where it has some; the simulated ones handed out.
  const std::filesystem::path archive = in.archive;
  const auto analyze = [&](const std::string& name, const Trace& trace, const TraceAnalysisOptions& options) {
    return service.analyze(trace, options, name == "measured" ? archive : std::filesystem::path());
  };
  Written w = run_single(s, std::move(in), out, o, analyze);
  service.release();
  return w;
}

void check_sweep_options(const Scenario& s, const RunOptions& o) {
  if (!o.chrome_trace.empty() && !s.sweep.empty())
    throw Error(fmt::format("--chrome-trace {}: {} is a sweep, which keeps no timelines; run one point of it",
                            o.chrome_trace.string(), s.file.string()));
  if (!s.exports.empty() && !s.sweep.empty())
    throw Error(fmt::format("{}: export: a sweep writes no exports; run one point of it", s.file.string()));
  if (s.sweep.empty() && (!o.points.empty() || o.resume || o.slurm_array > 0))
    throw Error(fmt::format("{}: --points, --resume and --slurm-array are for sweeps; this scenario has no sweep axes",
                            s.file.string()));
  if (o.slurm_array > 0 && (!o.points.empty() || o.resume))
    throw Error("--slurm-array writes the scripts of the whole sweep: it takes no --points or --resume");
}

}  // namespace

Written run(const RunOptions& o) {
  parse_html_window(o.html_window);  // a bad window is refused before the work
  Scenario s = load_scenario(o.scenario);
  if (o.no_interval) s.replay.interval = false;
  check_sweep_options(s, o);
  if (o.slurm_array > 0) return write_slurm(s, o);
  if (!s.sweep.empty() && (launched_by_mpi() || !o.points.empty() || o.resume)) return run_sharded(s, o);
  if (launched_by_mpi()) return run_point_once(s, o);
  AtomicDirectory out(output_dir(o, s), o.force);  // refuse an existing output before working
  ScenarioTrace in = load_trace(s);
  if (s.sweep.empty()) return run_single(s, std::move(in), out, o, on_every_core());
  const SweepResult sweep = run_sweep(s, in.trace, o.jobs, out.staging(), !o.no_cube);
  return write_sweep_outputs(s, in.source, sweep, out);
}

}  // namespace wisp::driver
