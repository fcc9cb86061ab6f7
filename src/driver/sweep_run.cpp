// A sweep's points in worker processes. See sweep_run.hpp.
#include "wisp/driver/sweep_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>

#include "wisp/driver/analysis_runner.hpp"
#include "wisp/driver/point_cubes.hpp"
#include "wisp/driver/quiet_rerun.hpp"
#include "wisp/error.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/process/child_process.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/transform.hpp"

namespace wisp {

namespace {

namespace fs = std::filesystem;

// The row of a point whose scenario an earlier pass replayed (`known`): its interval added.
SweepRow interval_row(const Scenario& point, const Trace& measured, const Transformed& transformed,
                      const IdentityRun& identity, const SweepRow& known) {
  SweepRow row = known;
  const GainInterval g = scenario_interval(point, measured, transformed, identity, known.scenario, known.variability);
  if (g.available) row.interval_low = g.low, row.interval_high = g.high;
  return row;
}

// One point in a worker process: its row as row_numbers() gives it and its scenario trace under
// `dir`, or the error text; exit code 0 / 1.
int sweep_worker(const Scenario& point, const Trace& measured, const Transformed& transformed,
                 const IdentityRun& identity, const fs::path& dir, const PointsOptions& o, std::size_t i) {
  try {
    SweepRow row;
    if (o.known) {
      row = interval_row(point, measured, transformed, identity, o.known->at(i));
    } else {
      const PointResult r = run_scenario(point, measured, transformed, identity);
      if (o.write_traces) write_otf2_into(r.scenario_replay.trace, dir / "trace", WriteOptions{});
      static_cast<Runtimes&>(row) = r;
      if (r.interval.available) row.interval_low = r.interval.low, row.interval_high = r.interval.high;
      if (o.variability) row.variability = point_variability(identity, measured, r.scenario_replay.trace);
      row.reach = platform_reach(r.residuals);
    }
    std::ofstream(dir / "row") << row_numbers(row) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::ofstream(dir / "error") << e.what();
    return 1;
  }
}

// What a finished worker left in its directory.
void collect(SweepRow& row, const fs::path& dir, const ChildExit& exit) {
  if (const auto text = read_file(dir / "row")) {
    read_row_numbers(*text, row);
  } else if (const auto error = read_file(dir / "error")) {
    row.error = *error;
  } else {
    row.error =
        exit.killed ? fmt::format("worker killed by signal {}", exit.signal) : "worker failed without a message";
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

}  // namespace

fs::path point_dir(const fs::path& dir, std::size_t i) { return dir / fmt::format(".point-{}", i); }

namespace {

// A point's transforms applied in the parent (a failure is the point's row error or thrown) and
// the identity it needs made once.
std::optional<Transformed> prepare(const Scenario& point, const Trace& measured, const PointsOptions& o,
                                   IdentityRuns& identities, SweepRow& row) {
  std::optional<Transformed> transformed;
  try {
    transformed = apply_transforms(measured, point.transforms);
  } catch (const Error& e) {
    if (!o.transform_errors_fail) throw;
    row.error = e.what();
    return std::nullopt;
  }
  const std::string key = identity_key(point);
  if (!identities.count(key)) identities.emplace(key, run_identity(point, measured));
  return transformed;
}

}  // namespace

std::vector<SweepRow> run_points(const std::vector<Scenario>& points, const Trace& measured, const PointsOptions& o,
                                 const fs::path& out, IdentityRuns& identities) {
  std::vector<SweepRow> rows(points.size());
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0;
  while (done < points.size()) {
    while (next < points.size() && running.size() < static_cast<std::size_t>(std::max(o.jobs, 1))) {
      const std::size_t i = next++;
      rows[i].name = points[i].name;
      std::optional<Transformed> transformed;
      try {  // a point's transforms or a new identity run may fail: stop the others first
        transformed = prepare(points[i], measured, o, identities, rows[i]);
      } catch (...) {
        stop_workers(running);
        throw;
      }
      if (!transformed) {
        if (o.on_row) o.on_row(i, rows[i]);
        spdlog::info("{}: point {}/{} failed: {}", points[i].name, ++done, points.size(), rows[i].error);
        continue;
      }
      fs::create_directories(point_dir(out, i));
      const IdentityRun& identity = identities.at(identity_key(points[i]));
      const pid_t pid = start_child(
          [&] { return sweep_worker(points[i], measured, *transformed, identity, point_dir(out, i), o, i); });
      if (pid < 0) {
        stop_workers(running);
        throw Error("cannot start a worker process");
      }
      running[pid] = i;
    }
    if (running.empty()) continue;
    const ChildExit exit = wait_for_any_child();
    if (exit.pid < 0) throw Error("lost a worker process");
    const std::size_t i = running.at(exit.pid);
    running.erase(exit.pid);
    collect(rows[i], point_dir(out, i), exit);
    if (!o.write_traces) fs::remove_all(point_dir(out, i));
    if (o.on_row) o.on_row(i, rows[i]);
    spdlog::info("{}: point {}/{} done{}", points[i].name, ++done, points.size(),
                 rows[i].error.empty() ? "" : " (failed)");
  }
  return rows;
}

SweepResult run_sweep(const Scenario& s, const Trace& measured, int jobs, const fs::path& out, bool cubes) {
  const SweepPoints all = sweep_points_of(s);
  const std::vector<Scenario>& points = all.points;
  SweepResult result{all.rows, {}};
  spdlog::info("{}: {} sweep points, {} at a time", s.name, points.size(), jobs);
  IdentityRuns identities;
  std::vector<SweepRow> rows = run_points(points, measured, PointsOptions{jobs, true, false, {}}, out, identities);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    static_cast<Runtimes&>(result.rows[i]) = rows[i];
    result.rows[i].error = rows[i].error;
    result.rows[i].interval_low = rows[i].interval_low;
    result.rows[i].interval_high = rows[i].interval_high;
    result.rows[i].reach = rows[i].reach;
  }
  result.best = best_point(result.rows);
  if (result.best) {
    fs::rename(point_dir(out, *result.best) / "trace", out / "scenario-trace");
    const IdentityRun& identity = identities.at(identity_key(points[*result.best]));
    write_otf2_into(identity.replay.trace, out / "identity-trace", WriteOptions{});
    std::vector<std::string> warnings;  // the cubes' own, said once the rerun is over
    if (cubes) {
      const driver::QuietRerun quiet("writing the best point's cubes: its run again");
      warnings = driver::write_point_cubes(evaluate_point(points[*result.best], measured, {}, driver::on_every_core()),
                                           out, "wisp run " + s.file.string());
    }
    for (const std::string& w : warnings) spdlog::warn("{}", w);
  }
  for (std::size_t i = 0; i < points.size(); ++i) fs::remove_all(point_dir(out, i));
  return result;
}

}  // namespace wisp
