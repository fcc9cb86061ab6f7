// `wisp run SCENARIO.yaml [-o DIR] [--jobs N] [--json] [--force]`: the what-if question of a
// scenario file answered — identity and scenario replays, analyses, the estimated gain; sweeps
// run their points in parallel worker processes (SimGrid allows one engine per process).
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/interrupt.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/report/run_report.hpp"
#include "wisp/scenario/run.hpp"
#include "wisp/scenario/transform.hpp"

namespace wisp::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string scenario;
  std::string output;
  int jobs = 1;
  bool json = false;
  bool force = false;
};

struct Input {
  Trace trace;
  std::string source;
};

Input load_trace(const Scenario& s) {
  try {
    if (!s.trace.generate.empty())
      return {generate_trace(s.trace.generate), "generate " + s.trace.generate};
    return {read_otf2(s.trace.path), s.trace.path.string()};
  } catch (const Error& e) {
    throw Error(s.trace.where.str() + ": trace: " + e.what());
  }
}

fs::path output_dir(const Options& o, const Scenario& s) {
  if (!o.output.empty()) return o.output;
  if (!s.output.empty()) return s.output;
  return fs::path("wisp-" + s.name);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void finish(const RunReport& report, AtomicDirectory& out, bool json) {
  write_file_atomically(out.staging() / "report.json", report.json.dump(2) + "\n");
  write_file_atomically(out.staging() / "report.txt", report.text);
  out.commit();
  if (json) std::printf("%s\n", report.json.dump(2).c_str());
  else std::printf("%s\nwrote %s\n", report.text.c_str(), out.target().c_str());
}

void run_single(const Scenario& s, const Input& in, AtomicDirectory& out, bool json) {
  PointResult r;
  try {
    r = run_point(s, in.trace);
  } catch (const ReplayDeadlock& e) {
    throw Error(fmt::format("{}: trace {}: {}", s.file.string(), in.source, e.what()));
  }
  const RunReport report = point_report(s, in.source, in.trace, r);
  WriteOptions w;
  w.creator = "wisp run";
  w.description = "scenario " + s.name + " simulated by wisp";
  write_otf2_into(r.scenario_replay.trace, out.staging() / "scenario-trace", w);
  finish(report, out, json);
}

// One sweep point in a worker process: its row as "measured identity scenario" and its scenario
// trace under `dir`, or the error text; exit status 0 / 1.
[[noreturn]] void sweep_worker(const Scenario& point, const Input& in, const IdentityRun& identity,
                               const fs::path& dir) {
  int status = 0;
  try {
    const PointResult r = run_scenario(point, in.trace, identity);
    write_otf2_into(r.scenario_replay.trace, dir / "trace", WriteOptions{});
    std::ofstream(dir / "row") << fmt::format("{:.17g} {:.17g} {:.17g}\n", r.measured, r.identity, r.scenario);
  } catch (const std::exception& e) {
    std::ofstream(dir / "error") << e.what();
    status = 1;
  }
  std::fflush(nullptr);
  _exit(status);
}

void run_sweep(const Scenario& s, const Input& in, AtomicDirectory& out, int jobs, bool json) {
  const auto points = sweep_points(s);
  std::vector<Scenario> scenarios;
  std::vector<SweepRow> rows(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {  // every point checked before any replay
    scenarios.push_back(sweep_point(s, points[i]));
    apply_transforms(in.trace, scenarios.back().transforms);
    rows[i].name = scenarios.back().name;
    for (std::size_t a = 0; a < s.sweep.size(); ++a) {
      std::string v = YAML::Dump(s.sweep[a].values[points[i][a]]);
      rows[i].values.push_back(v);
    }
  }
  spdlog::info("{}: {} sweep points, {} at a time", s.name, points.size(), jobs);
  // Identity runs are shared by the points whose platform and replay options agree; each is
  // made once here, before the workers that need it are forked (they inherit it).
  std::map<std::string, IdentityRun> identities;
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0;
  const auto dir = [&](std::size_t i) { return out.staging() / fmt::format(".point-{}", i); };
  while (done < points.size()) {
    while (next < points.size() && running.size() < static_cast<std::size_t>(jobs)) {
      fs::create_directories(dir(next));
      const std::string key = identity_key(scenarios[next]);
      if (!identities.count(key)) identities.emplace(key, run_identity(scenarios[next], in.trace));
      std::fflush(nullptr);
      const pid_t pid = fork();
      if (pid < 0) throw Error("cannot start a sweep worker process");
      if (pid == 0) {
        interrupt::child_started();
        sweep_worker(scenarios[next], in, identities.at(key), dir(next));
      }
      interrupt::add_child(pid);
      running[pid] = next++;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) throw Error("lost a sweep worker process");
    const std::size_t i = running.at(pid);
    running.erase(pid);
    interrupt::remove_child(pid);
    ++done;
    SweepRow& row = rows[i];
    if (fs::exists(dir(i) / "row")) {
      std::istringstream(slurp(dir(i) / "row")) >> row.measured >> row.identity >> row.scenario;
    } else if (fs::exists(dir(i) / "error")) {
      row.error = slurp(dir(i) / "error");
    } else {
      row.error = WIFSIGNALED(status) ? fmt::format("worker killed by signal {}", WTERMSIG(status))
                                      : "worker failed without a message";
    }
    spdlog::info("{}: point {}/{} done{}", s.name, done, points.size(), row.error.empty() ? "" : " (failed)");
  }
  const RunReport report = sweep_report(s, in.source, rows);
  write_file_atomically(out.staging() / "sweep.csv", sweep_csv(s, rows));
  if (report.json.contains("best")) {
    const std::size_t best = report.json["best"].get<std::size_t>();
    fs::rename(dir(best) / "trace", out.staging() / "scenario-trace");
  }
  for (std::size_t i = 0; i < points.size(); ++i) fs::remove_all(dir(i));
  std::size_t failed = 0;
  for (const auto& r : rows) failed += !r.error.empty();
  finish(report, out, json);
  if (failed)
    throw Error(fmt::format("{} of {} sweep points failed (see {}/sweep.csv); first: {}", failed,
                            rows.size(), out.target().string(),
                            std::find_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.error.empty(); })->error));
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
  cmd->callback([o] {
    const Scenario s = load_scenario(o->scenario);
    AtomicDirectory out(output_dir(*o, s), o->force);  // refuse an existing output before working
    const Input in = load_trace(s);
    if (s.sweep.empty()) run_single(s, in, out, o->json);
    else run_sweep(s, in, out, o->jobs, o->json);
  });
}

}  // namespace wisp::cli
