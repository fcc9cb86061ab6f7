// `wisp suggest`. See suggest.hpp.
#include "wisp/driver/suggest.hpp"

#include <fmt/format.h>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/suggest_run.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/suggest_report.hpp"
#include "wisp/scenario/scenario_writer.hpp"

namespace wisp::driver {

namespace {

namespace fs = std::filesystem;

bool is_scenario_file(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

// A trace on the command line becomes the scenario "this trace on this platform, no transforms".
Scenario base_scenario(const SuggestVerbOptions& o) {
  if (is_scenario_file(o.input)) {
    if (!o.platform.empty())
      throw Error(fmt::format("{}: --platform is for a trace; the scenario names its own platform", o.input.string()));
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
  return parse_scenario(scenario_yaml(s), "wisp suggest " + o.input.string());
}

fs::path output_dir(const SuggestVerbOptions& o, const Scenario& s) {
  if (!o.output.empty()) return o.output;
  return fs::path("wisp-suggest-" + (is_scenario_file(o.input) ? s.name : o.input.filename().stem().string()));
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

Written suggest(const SuggestVerbOptions& o) {
  const MpiSession mpi;  // under mpirun/srun: rank 0 analyses and ranks, the others simulate candidates
  Scenario base = base_scenario(o);
  if (o.no_interval) base.replay.interval = false;
  if (mpi.rank() != 0) {
    serve_suggest(mpi, load_trace(base));
    return {};
  }
  AtomicDirectory out(output_dir(o, base), o.force);  // refuse an existing output before working
  const ScenarioTrace in = load_trace(base);
  SuggestOptions options;
  options.jobs = o.jobs;
  if (mpi.size() > 1) options.mpi = &mpi;
  options.hypotheses.top = o.top;
  const SuggestResult r = wisp::suggest(base, in, options, out.target(), out.staging());
  if (mpi.size() > 1) mpi_release(mpi);
  write_output(r, out);
  return Written{suggest_json(r), suggest_text(r), "\nwrote " + out.target().string() + "\n", {}, {}};
}

}  // namespace wisp::driver
