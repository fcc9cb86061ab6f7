// `wisp run SCENARIO.yaml [-o DIR] [--jobs N] [--json] [--force] [--chrome-trace FILE]`: the what-if question of a
// scenario file answered. The scenario layer evaluates (evaluate.hpp, sweep.hpp), the report
// layer renders; this verb parses, wires them and writes the output directory atomically. A sweep
// also runs over MPI ranks (mpirun/srun), in slices (--points, --resume) or as a Slurm array.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "sweep_outputs.hpp"
#include "wisp/analysis/timeline.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/io/mpi_pool.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/run_report.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/sweep.hpp"
#include "wisp/scenario/sweep_parts.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string scenario;
  std::string output;
  std::string chrome_trace;
  int jobs = 1;
  bool json = false;
  bool force = false;
  bool detail = false;   // report.json with the analyses' per-segment lists
  long long top = 20;    // report.txt: rows per metric
  std::string points;    // a slice of a sweep: "A-B"
  bool resume = false;   // continue the part directory of an earlier run
  std::size_t slurm_array = 0;  // write Slurm job-array scripts of this many tasks instead
  bool no_interval = false;     // skip the gain interval's hypothesis replays
};

fs::path output_dir(const Options& o, const Scenario& s) {
  if (!o.output.empty()) return o.output;
  if (!s.output.empty()) return s.output;
  return fs::path("wisp-" + s.name);
}

// report.json is written compact (it is for programs); --json prints it indented.
void finish(const nlohmann::json& json, const std::string& text, AtomicDirectory& out, bool print_json) {
  write_file_atomically(out.staging() / "report.json", json_text(json) + "\n");
  write_file_atomically(out.staging() / "report.txt", text);
  out.commit();
  if (print_json) std::printf("%s\n", json_text(json, 2).c_str());
  else std::printf("%s\nwrote %s\n", text.c_str(), out.target().c_str());
}

// report.html and, if asked, the Chrome trace: the timelines of the three traces.
void write_views(const Scenario& s, const ScenarioTrace& in, const PointEvaluation& p, AtomicDirectory& out,
                 const std::string& chrome_trace) {
  const Timeline measured = build_timeline(in.trace, p.measured.wait_paths);
  const Timeline identity = build_timeline(p.result.identity_replay.trace, p.identity.wait_paths);
  const Timeline scenario = build_timeline(p.result.scenario_replay.trace, p.scenario.wait_paths);
  write_file_atomically(out.staging() / "report.html",
                        point_html(s, in, p, {{"identity", &identity}, {"scenario", &scenario}, {"measured", &measured}}));
  if (!chrome_trace.empty())
    write_file_atomically(chrome_trace,
                          chrome_trace_json({{"measured", &measured}, {"identity", &identity}, {"scenario", &scenario}}));
}

// The simulated identity and scenario traces side by side, so that Vampir shows both.
void write_traces(const Scenario& s, const PointResult& r, const fs::path& dir) {
  WriteOptions w;
  w.creator = "wisp run";
  w.description = "scenario " + s.name + " simulated by wisp";
  write_otf2_into(r.scenario_replay.trace, dir / "scenario-trace", w);
  w.description = "identity of scenario " + s.name + " (the unchanged trace) simulated by wisp";
  write_otf2_into(r.identity_replay.trace, dir / "identity-trace", w);
}

void run_single(const Scenario& s, const ScenarioTrace& in, AtomicDirectory& out, const Options& o) {
  PointEvaluation p;
  try {
    p = evaluate_point(s, in.trace);
  } catch (const ReplayDeadlock& e) {
    throw Error(fmt::format("{}: trace {}: {}", s.file.string(), in.source, e.what()));
  }
  write_traces(s, p.result, out.staging());
  write_views(s, in, p, out, o.chrome_trace);
  const RunReportOptions report{o.detail, static_cast<std::size_t>(o.top)};
  finish(point_json(s, in, p, report), point_text(s, in, p, report), out, o.json);
}

void run_sweep(const Scenario& s, const ScenarioTrace& in, AtomicDirectory& out, int jobs, bool json) {
  const SweepResult sweep = wisp::run_sweep(s, in.trace, jobs, out.staging());
  write_sweep_outputs(s, in.source, sweep, out, json);
  throw_if_points_failed(sweep, out.target());
}

// A sweep over MPI ranks or in slices: rank 0 keeps every finished point in a part directory (the
// output itself with --points, else DIR.partial, merged into DIR at the end and removed).
void run_sharded(const Scenario& s, const Options& o) {
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
  if (!root) return;
  if (slice_only) {
    std::printf("wrote %s (%zu points computed)\n", part.c_str(), computed);
    return;
  }
  const MergedSweep merged = merge_parts({part});
  write_best_traces(s, in.trace, merged.result, out->staging());
  write_sweep_outputs(s, in.source, merged.result, *out, o.json);
  fs::remove_all(part);
  throw_if_points_failed(merged.result, out->target());
}

// `--slurm-array N`: the scripts only; nothing runs here.
void write_slurm(const Scenario& s, const Options& o) {
  AtomicDirectory out(output_dir(o, s), o.force);
  const SlurmArray a{fs::canonical("/proc/self/exe"), fs::absolute(s.file).lexically_normal(),
                     fs::absolute(out.target()).lexically_normal(), s.name, sweep_points(s).size(), o.slurm_array};
  write_slurm_scripts(a, out);
  std::printf("wrote %s: bash %s/submit.sh queues %zu array tasks and the merge into %s/result\n",
              out.target().c_str(), a.dir.c_str(), split_points(a.points, a.tasks).size(), a.dir.c_str());
}

// Under mpirun a single point runs on rank 0 only.
void run_point_once(const Scenario& s, const Options& o) {
  const MpiSession mpi;
  if (mpi.rank() != 0) return;
  if (mpi.size() > 1) spdlog::warn("{}: a single point runs on rank 0 only; the other ranks have nothing to do", s.name);
  AtomicDirectory out(output_dir(o, s), o.force);
  run_single(s, load_trace(s), out, o);
}

void check_sweep_options(const Scenario& s, const Options& o) {
  if (!o.chrome_trace.empty() && !s.sweep.empty())
    throw Error(fmt::format("--chrome-trace {}: {} is a sweep, which keeps no timelines; run one point of it",
                            o.chrome_trace, s.file.string()));
  if (s.sweep.empty() && (!o.points.empty() || o.resume || o.slurm_array > 0))
    throw Error(fmt::format("{}: --points, --resume and --slurm-array are for sweeps; this scenario has no sweep axes",
                            s.file.string()));
  if (o.slurm_array > 0 && (!o.points.empty() || o.resume))
    throw Error("--slurm-array writes the scripts of the whole sweep: it takes no --points or --resume");
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("run", "answer a scenario's what-if question: replays, analyses, estimated gain");
  cmd->add_option("scenario", o->scenario, "scenario file (YAML, see scenarios/README.md)")->required();
  cmd->add_option("-o,--output", o->output, "output directory (default: the scenario's output, else wisp-NAME)");
  cmd->add_option("-j,--jobs", o->jobs, "sweep points run in parallel")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_flag("--json", o->json, "print report.json instead of the text report");
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_option("--chrome-trace", o->chrome_trace,
                  "also write the measured, identity and scenario timelines to FILE (Chrome/Perfetto trace JSON)");
  cmd->add_option("--top", o->top, "report.txt: rows per metric of the call-path comparison")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--points", o->points, "sweeps: run points A-B only and write them as a part for wisp merge");
  cmd->add_flag("--resume", o->resume, "sweeps: continue the part of an earlier run (DIR.partial, or the --points part)");
  cmd->add_option("--slurm-array", o->slurm_array, "sweeps: write Slurm job-array scripts of N tasks and a merge job")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--detail", o->detail, "report.json: also the analyses' per-segment lists (critical-path segments)");
  cmd->add_flag("--no-interval", o->no_interval,
                 "skip the gain interval (its two cost hypotheses are replayed beside the point: 3 more replays)");
  cmd->callback([o] {
    Scenario s = load_scenario(o->scenario);
    if (o->no_interval) s.replay.interval = false;
    check_sweep_options(s, *o);
    if (o->slurm_array > 0) return write_slurm(s, *o);
    if (!s.sweep.empty() && (launched_by_mpi() || !o->points.empty() || o->resume)) return run_sharded(s, *o);
    if (launched_by_mpi()) return run_point_once(s, *o);
    AtomicDirectory out(output_dir(*o, s), o->force);  // refuse an existing output before working
    const ScenarioTrace in = load_trace(s);
    if (s.sweep.empty()) run_single(s, in, out, *o);
    else run_sweep(s, in, out, o->jobs, o->json);
  });
}

}  // namespace wisp::cli
