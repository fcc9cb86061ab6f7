// Sweeps and their worker processes. See sweep.hpp.
#include "wisp/scenario/sweep.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
#include <sstream>

#include "wisp/error.hpp"
#include "wisp/io/child_process.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/scenario/run.hpp"
#include "wisp/scenario/transform.hpp"

namespace wisp {

namespace {

namespace fs = std::filesystem;

// The rows of every point, with its axis values as written, before anything runs.
std::vector<SweepRow> rows_of(const Scenario& s, const std::vector<Scenario>& points,
                              const std::vector<std::vector<std::size_t>>& index) {
  std::vector<SweepRow> rows(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    rows[i].name = points[i].name;
    for (std::size_t a = 0; a < s.sweep.size(); ++a) rows[i].values.push_back(YAML::Dump(s.sweep[a].values[index[i][a]]));
  }
  return rows;
}

// One point in a worker process: its row as "measured identity scenario" and its scenario trace
// under `dir`, or the error text; exit code 0 / 1.
int sweep_worker(const Scenario& point, const Trace& measured, const Transformed& transformed,
                 const IdentityRun& identity, const fs::path& dir) {
  try {
    const PointResult r = run_scenario(point, measured, transformed, identity);
    write_otf2_into(r.scenario_replay.trace, dir / "trace", WriteOptions{});
    std::ofstream(dir / "row") << fmt::format("{:.17g} {:.17g} {:.17g}\n", r.measured, r.identity, r.scenario);
    return 0;
  } catch (const std::exception& e) {
    std::ofstream(dir / "error") << e.what();
    return 1;
  }
}

// What a finished worker left in its directory.
void collect(SweepRow& row, const fs::path& dir, const ChildExit& exit) {
  if (const auto text = read_file(dir / "row")) {
    std::istringstream(*text) >> row.measured >> row.identity >> row.scenario;
  } else if (const auto error = read_file(dir / "error")) {
    row.error = *error;
  } else {
    row.error = exit.killed ? fmt::format("worker killed by signal {}", exit.signal) : "worker failed without a message";
  }
}

// A sweep that ends with an error (a point's transform) stops the workers still running.
void stop_workers(std::map<pid_t, std::size_t>& running) {
  for (const auto& [pid, point] : running) {
    kill(pid, SIGKILL);
    wait_for_child(pid);
  }
  running.clear();
}

std::optional<std::size_t> best_of(const std::vector<SweepRow>& rows) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].error.empty() && (!best || rows[i].scenario < rows[*best].scenario)) best = i;
  return best;
}

}  // namespace

std::size_t SweepResult::failed() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.error.empty(); }));
}

SweepResult run_sweep(const Scenario& s, const Trace& measured, int jobs, const fs::path& out) {
  const auto index = sweep_points(s);
  std::vector<Scenario> points;
  for (const auto& i : index) points.push_back(sweep_point(s, i));  // every point's keys checked first
  SweepResult result{rows_of(s, points, index), {}};
  spdlog::info("{}: {} sweep points, {} at a time", s.name, points.size(), jobs);
  // Identity runs are shared by the points whose platform and replay options agree; each is made
  // once, before the workers that need it are started (they inherit it, as their transformed trace).
  std::map<std::string, IdentityRun> identities;
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0;
  const auto dir = [&](std::size_t i) { return out / fmt::format(".point-{}", i); };
  while (done < points.size()) {
    while (next < points.size() && running.size() < static_cast<std::size_t>(jobs)) {
      Transformed transformed;
      const std::string key = identity_key(points[next]);
      try {  // a point's transforms or a new identity run may fail: stop the others first
        transformed = apply_transforms(measured, points[next].transforms);
        if (!identities.count(key)) identities.emplace(key, run_identity(points[next], measured));
      } catch (...) {
        stop_workers(running);
        throw;
      }
      fs::create_directories(dir(next));
      const IdentityRun& identity = identities.at(key);
      const pid_t pid = start_child([&] { return sweep_worker(points[next], measured, transformed, identity, dir(next)); });
      if (pid < 0) {
        stop_workers(running);
        throw Error("cannot start a sweep worker process");
      }
      running[pid] = next++;
    }
    const ChildExit exit = wait_for_any_child();
    if (exit.pid < 0) throw Error("lost a sweep worker process");
    const std::size_t i = running.at(exit.pid);
    running.erase(exit.pid);
    collect(result.rows[i], dir(i), exit);
    spdlog::info("{}: point {}/{} done{}", s.name, ++done, points.size(), result.rows[i].error.empty() ? "" : " (failed)");
  }
  result.best = best_of(result.rows);
  if (result.best) {
    fs::rename(dir(*result.best) / "trace", out / "scenario-trace");
    const IdentityRun& identity = identities.at(identity_key(points[*result.best]));
    write_otf2_into(identity.replay.trace, out / "identity-trace", WriteOptions{});
  }
  for (std::size_t i = 0; i < points.size(); ++i) fs::remove_all(dir(i));
  return result;
}

}  // namespace wisp
