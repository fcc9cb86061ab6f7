// `wisp suggest TRACE|SCENARIO.yaml [-o DIR] [--jobs N] [--top K] [--platform P] [--json] [--force]`:
// hypotheses generated from the analyses, simulated against one identity replay and ranked by
// gain (scenario/suggest_run.hpp); this verb parses, wires and writes the directory atomically.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "wisp/error.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/io/mpi_pool.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/suggest_report.hpp"
#include "wisp/scenario/scenario_writer.hpp"
#include "wisp/scenario/suggest_run.hpp"

namespace wisp::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string input;
  std::string output;
  std::string platform;
  int jobs = 1;
  std::size_t top = 3;
  bool json = false;
  bool force = false;
  bool no_interval = false;
};

bool is_scenario_file(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

// A trace on the command line becomes the scenario "this trace on this platform, no transforms".
Scenario base_scenario(const Options& o) {
  if (is_scenario_file(o.input)) {
    if (!o.platform.empty())
      throw Error(fmt::format("{}: --platform is for a trace; the scenario names its own platform", o.input));
    return load_scenario(o.input);
  }
  Scenario s;
  s.name = "suggest";
  s.trace.path = fs::absolute(o.input);
  if (!o.platform.empty() && o.platform != "calibrated") {
    s.platform.kind = PlatformSpec::Kind::File;
    s.platform.file = fs::absolute(o.platform);
  }
  s.analyses = analysis_keys();
  return parse_scenario(scenario_yaml(s), "wisp suggest " + o.input);
}

fs::path output_dir(const Options& o, const Scenario& s) {
  if (!o.output.empty()) return o.output;
  const fs::path in = fs::path(o.input);
  return fs::path("wisp-suggest-" + (is_scenario_file(in) ? s.name : in.filename().stem().string()));
}

void write_output(const SuggestResult& r, AtomicDirectory& out) {
  fs::create_directories(out.staging() / "hypotheses");
  for (const Suggestion& s : r.suggestions) write_file_atomically(out.staging() / s.file, s.yaml);
  write_file_atomically(out.staging() / "suggest.json", json_text(suggest_json(r)) + "\n");
  write_file_atomically(out.staging() / "suggest.txt", suggest_text(r));
  write_file_atomically(out.staging() / "report.html", suggest_html(r));
  out.commit();
}

}  // namespace

void add_suggest_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("suggest", "hypotheses from the analyses, simulated and ranked by gain");
  cmd->add_option("input", o->input, "OTF2 trace (anchor file or directory), or a scenario file naming trace and platform")
      ->required();
  cmd->add_option("-o,--output", o->output, "output directory (default: wisp-suggest-NAME)");
  cmd->add_option("-j,--jobs", o->jobs, "hypotheses simulated in parallel")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--top", o->top, "call paths taken from each indicator")->check(CLI::Range(1, 100))->capture_default_str();
  cmd->add_option("--platform", o->platform, "calibrated (default) or a SimGrid XML platform file (trace input only)");
  cmd->add_flag("--json", o->json, "print suggest.json instead of the text table");
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_flag("--no-interval", o->no_interval, "skip each hypothesis' gain interval (3 more replays each)");
  cmd->callback([o] {
    const MpiSession mpi;  // under mpirun/srun: rank 0 analyses and ranks, the others simulate candidates
    Scenario base = base_scenario(*o);
    if (o->no_interval) base.replay.interval = false;
    if (mpi.rank() != 0) return serve_suggest(mpi, load_trace(base));
    AtomicDirectory out(output_dir(*o, base), o->force);  // refuse an existing output before working
    const ScenarioTrace in = load_trace(base);
    SuggestOptions options;
    options.jobs = o->jobs;
    if (mpi.size() > 1) options.mpi = &mpi;
    options.hypotheses.top = o->top;
    const SuggestResult r = suggest(base, in, options, out.target(), out.staging());
    if (mpi.size() > 1) mpi_release(mpi);
    write_output(r, out);
    if (o->json) std::printf("%s\n", json_text(suggest_json(r), 2).c_str());
    else std::printf("%s\nwrote %s\n", suggest_text(r).c_str(), out.target().c_str());
  });
}

}  // namespace wisp::cli
