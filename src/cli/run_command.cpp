// `wisp run SCENARIO.yaml [-o DIR] [--jobs N] [--json] [--force] [--chrome-trace FILE]`: the what-if question of a
// scenario file answered. The scenario layer evaluates (evaluate.hpp, sweep.hpp), the report
// layer renders; this verb parses, wires them and writes the output directory atomically.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "wisp/analysis/timeline.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/run_report.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/sweep.hpp"
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
};

fs::path output_dir(const Options& o, const Scenario& s) {
  if (!o.output.empty()) return o.output;
  if (!s.output.empty()) return s.output;
  return fs::path("wisp-" + s.name);
}

// report.json is written compact (it is for programs); --json prints it indented.
void finish(const nlohmann::json& json, const std::string& text, AtomicDirectory& out, bool print_json) {
  write_file_atomically(out.staging() / "report.json", json.dump() + "\n");
  write_file_atomically(out.staging() / "report.txt", text);
  out.commit();
  if (print_json) std::printf("%s\n", json.dump(2).c_str());
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
  write_file_atomically(out.staging() / "sweep.csv", sweep_csv(s, sweep));
  write_file_atomically(out.staging() / "report.html", sweep_html(s, in.source, sweep));
  finish(sweep_json(s, in.source, sweep), sweep_text(s, in.source, sweep), out, json);
  if (const std::size_t failed = sweep.failed()) {
    const auto first = std::find_if(sweep.rows.begin(), sweep.rows.end(), [](const SweepRow& r) { return !r.error.empty(); });
    throw Error(fmt::format("{} of {} sweep points failed (see {}/sweep.csv); first: {}", failed, sweep.rows.size(),
                            out.target().string(), first->error));
  }
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
  cmd->add_flag("--detail", o->detail, "report.json: also the analyses' per-segment lists (critical-path segments)");
  cmd->callback([o] {
    const Scenario s = load_scenario(o->scenario);
    if (!o->chrome_trace.empty() && !s.sweep.empty())
      throw Error(fmt::format("--chrome-trace {}: {} is a sweep, which keeps no timelines; run one point of it",
                              o->chrome_trace, s.file.string()));
    AtomicDirectory out(output_dir(*o, s), o->force);  // refuse an existing output before working
    const ScenarioTrace in = load_trace(s);
    if (s.sweep.empty()) run_single(s, in, out, *o);
    else run_sweep(s, in, out, o->jobs, o->json);
  });
}

}  // namespace wisp::cli
