// Part directories of a sweep, running a slice locally or over MPI, and merging. See sweep_parts.hpp.
#include "wisp/driver/sweep_parts.hpp"
#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdlib>

#include "wisp/driver/analysis_runner.hpp"
#include "wisp/driver/point_cubes.hpp"
#include "wisp/driver/points_over_mpi.hpp"
#include "wisp/driver/quiet_rerun.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/process/interrupt.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/point_replays.hpp"

namespace wisp {

namespace fs = std::filesystem;

namespace {

std::size_t parse_index(const std::string& text, const std::string& where) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 18)
    throw Error(fmt::format("{}: '{}' is not a point number", where, text));
  return std::stoull(text);
}

// FNV-1a of the scenario file: enough to tell an edited file from the one a part was made of.
std::string digest_of(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

nlohmann::json manifest_json(const PartManifest& m) {
  return {{"format", "wisp sweep part 1"},
          {"scenario", m.scenario},
          {"scenario_path", m.scenario_path},
          {"name", m.name},
          {"digest", m.digest},
          {"trace", m.trace},
          {"points", m.total},
          {"slice", {m.slice.begin, m.slice.end}}};
}

// [a, b], or null when a is NaN (not computed).
nlohmann::json pair_or_null(double a, double b) {
  return std::isnan(a) ? nlohmann::json(nullptr) : nlohmann::json::array({a, b});
}

nlohmann::json row_json(std::size_t point, const SweepRow& r) {
  return {
      {"point", point},
      {"name", r.name},
      {"values", r.values},
      {"measured", r.measured},
      {"identity", r.identity},
      {"scenario", r.scenario},
      {"error", r.error},
      {"gain_interval", pair_or_null(r.interval_low, r.interval_high)},
      {"platform_reach", r.reach ? nlohmann::json::array({r.reach->traced, r.reach->network, r.reach->waiting,
                                                          r.reach->init_finalize, r.reach->residual, r.reach->typical})
                                 : nlohmann::json(nullptr)}};
}

SweepRow row_of(const nlohmann::json& j) {
  SweepRow r;
  r.name = j.at("name").get<std::string>();
  r.values = j.at("values").get<std::vector<std::string>>();
  r.measured = j.at("measured").get<double>();
  r.identity = j.at("identity").get<double>();
  r.scenario = j.at("scenario").get<double>();
  r.error = j.at("error").get<std::string>();
  if (j.contains("gain_interval") && j["gain_interval"].is_array() && j["gain_interval"].size() == 2) {
    r.interval_low = j["gain_interval"][0].get<double>();
    r.interval_high = j["gain_interval"][1].get<double>();
  }
  if (j.contains("platform_reach") && j["platform_reach"].is_array() && j["platform_reach"].size() == 6) {
    const auto& p = j["platform_reach"];
    r.reach = PlatformReach{p[0].get<double>(), p[1].get<double>(), p[2].get<double>(),
                            p[3].get<double>(), p[4].get<double>(), p[5].get<double>()};
  }
  return r;
}

fs::path row_file(const fs::path& dir, std::size_t point) { return dir / "points" / fmt::format("{}.json", point); }

std::string slice_text(const PointSlice& s) { return fmt::format("{}-{}", s.begin, s.end - 1); }

// Why an existing part cannot be continued as `m`, or "".
std::string mismatch(const PartManifest& old, const PartManifest& m) {
  if (old.digest != m.digest || old.total != m.total)
    return fmt::format("was made from another version of the sweep ({}, {} points)", old.scenario, old.total);
  if (old.slice.begin != m.slice.begin || old.slice.end != m.slice.end)
    return fmt::format("holds points {}, not {}", slice_text(old.slice), slice_text(m.slice));
  return "";
}

std::vector<std::size_t> missing_points(const fs::path& dir, const PointSlice& slice) {
  const auto rows = read_part_rows(dir);
  std::vector<std::size_t> out;
  for (std::size_t i = slice.begin; i < slice.end; ++i)
    if (!rows.count(i)) out.push_back(i);
  return out;
}

// The line rank 0 leaves for the signal handler while points are out on the workers.
std::string lost_message(const std::vector<std::size_t>& running, const fs::path& dir) {
  std::vector<std::size_t> sorted = running;
  std::sort(sorted.begin(), sorted.end());
  return fmt::format(
      "the MPI job ended (a rank died or was stopped) while {} {} {} running; the finished points "
      "are kept in {}: rerun the same command with --resume to compute the rest",
      sorted.size() == 1 ? "point" : "points", point_list(sorted), sorted.size() == 1 ? "was" : "were", dir.string());
}

// Test hook: a worker rank that gets point WISP_TEST_KILL_WORKER_AT_POINT kills itself (SIGKILL),
// as a node that dies would.
void test_hook_die(std::size_t point) {
  const char* at = std::getenv("WISP_TEST_KILL_WORKER_AT_POINT");
  if (at != nullptr && std::to_string(point) == at) std::raise(SIGKILL);
}

std::size_t run_over_mpi(const SweepPoints& all, const Trace& measured, const fs::path& dir,
                         const std::vector<std::size_t>& missing, const MpiSession& mpi) {
  std::size_t done = 0;
  MpiPoints work;
  work.items = missing;
  work.point = [&](std::size_t i) -> const Scenario& { return all.points.at(i); };
  work.text = [](std::size_t) { return std::string(); };  // every rank makes the sweep's points
  work.make = [&](std::size_t i, const std::string&) {
    test_hook_die(i);
    return all.points.at(i);
  };
  work.on_row = [&](std::size_t i, const SweepRow& r) {
    SweepRow row = r;
    row.name = all.rows.at(i).name;
    row.values = all.rows.at(i).values;
    write_part_row(dir, i, row);
    spdlog::info("{}: point {} done ({}/{}){}", row.name, i, ++done, missing.size(),
                 row.error.empty() ? "" : " (failed)");
  };
  work.unfinished = [&](const std::vector<std::size_t>& running) {
    if (running.empty())
      interrupt::clear_message();
    else
      interrupt::set_message("wisp: error: " + lost_message(running, dir));
  };
  work.lost = [&](const std::vector<std::size_t>& running, const std::string& why) {
    interrupt::clear_message();
    throw Error(lost_message(running, dir) + " (" + why + ")");
  };
  if (mpi.rank() != 0) {
    interrupt::set_message("");  // rank 0 speaks for the job, to the end
    serve_points(mpi, measured, work);
    return 0;
  }
  schedule_points(mpi, work);
  mpi_release(mpi);
  interrupt::clear_message();
  return missing.size();
}

std::size_t run_locally(const SweepPoints& all, const Trace& measured, const fs::path& dir,
                        const std::vector<std::size_t>& missing, int jobs) {
  std::vector<Scenario> points;
  for (const std::size_t i : missing) points.push_back(all.points[i]);
  PointsOptions o{jobs, false, true, {}};
  o.on_row = [&](std::size_t k, const SweepRow& r) {
    SweepRow row = r;
    row.values = all.rows[missing[k]].values;
    write_part_row(dir, missing[k], row);
  };
  IdentityRuns identities;
  const fs::path work = dir / ".work";
  run_points(points, measured, o, work, identities);
  fs::remove_all(work);
  return missing.size();
}

}  // namespace

PointSlice parse_point_slice(const std::string& text, std::size_t total, const std::string& where) {
  const std::size_t dash = text.find('-');
  const std::size_t first = parse_index(text.substr(0, dash), where);
  const std::size_t last = dash == std::string::npos ? first : parse_index(text.substr(dash + 1), where);
  if (last < first) throw Error(fmt::format("{}: '{}': the range is reversed", where, text));
  if (last >= total)
    throw Error(
        fmt::format("{}: '{}': the sweep has {} points (0-{})", where, text, total, total == 0 ? 0 : total - 1));
  return {first, last + 1};
}

std::vector<PointSlice> split_points(std::size_t total, std::size_t parts) {
  parts = std::max<std::size_t>(1, std::min(parts, total));
  std::vector<PointSlice> out;
  for (std::size_t k = 0; k < parts; ++k) out.push_back({total * k / parts, total * (k + 1) / parts});
  return out;
}

std::string point_list(const std::vector<std::size_t>& points) {
  std::string out;
  for (std::size_t k = 0; k < points.size();) {
    std::size_t j = k;
    while (j + 1 < points.size() && points[j + 1] == points[j] + 1) ++j;
    out +=
        (out.empty() ? "" : ", ") + (j == k ? std::to_string(points[k]) : fmt::format("{}-{}", points[k], points[j]));
    k = j + 1;
  }
  return out;
}

PartManifest part_manifest(const Scenario& s, const std::string& trace_source, const PointSlice& slice) {
  const auto text = read_file(s.file);
  if (!text) throw Error(fmt::format("{}: cannot read the scenario file", s.file.string()));
  return {s.file.string(),
          fs::absolute(s.file).lexically_normal().string(),
          s.name,
          digest_of(*text),
          trace_source,
          sweep_points(s).size(),
          slice};
}

PartManifest read_part_manifest(const fs::path& dir) {
  const fs::path file = dir / "manifest.json";
  const auto text = read_file(file);
  if (!text) throw Error(fmt::format("{}: not a sweep part (no manifest.json)", dir.string()));
  try {
    const auto j = nlohmann::json::parse(*text);
    PartManifest m;
    m.scenario = j.at("scenario").get<std::string>();
    m.scenario_path = j.at("scenario_path").get<std::string>();
    m.name = j.at("name").get<std::string>();
    m.digest = j.at("digest").get<std::string>();
    m.trace = j.at("trace").get<std::string>();
    m.total = j.at("points").get<std::size_t>();
    m.slice = {j.at("slice").at(0).get<std::size_t>(), j.at("slice").at(1).get<std::size_t>()};
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not a sweep part manifest: {}", file.string(), e.what()));
  }
}

void open_part(const fs::path& dir, const PartManifest& m, bool resume, bool force) {
  if (fs::exists(dir) && resume) {
    const std::string why = mismatch(read_part_manifest(dir), m);
    if (!why.empty()) throw Error(fmt::format("{}: cannot resume: this part {}", dir.string(), why));
    return;
  }
  if (fs::exists(dir) && !fs::is_empty(dir)) {
    if (!force)
      throw Error(
          fmt::format("{}: exists (the points of an unfinished or earlier run): --resume continues it, "
                      "--force starts over",
                      dir.string()));
    fs::remove_all(dir);
  }
  fs::create_directories(dir / "points");
  write_file_atomically(dir / "manifest.json", json_text(manifest_json(m), 1) + "\n");
}

std::map<std::size_t, SweepRow> read_part_rows(const fs::path& dir) {
  std::map<std::size_t, SweepRow> rows;
  if (!fs::is_directory(dir / "points")) return rows;
  for (const auto& entry : fs::directory_iterator(dir / "points")) {
    const fs::path p = entry.path();
    const std::string stem = p.stem().string();
    if (p.extension() != ".json" || stem.empty() || stem.find_first_not_of("0123456789") != std::string::npos)
      continue;  // a temporary file of a write that was cut short
    const auto text = read_file(p);
    try {
      rows[std::stoull(stem)] = row_of(nlohmann::json::parse(text.value_or("")));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: not a sweep point row: {}", p.string(), e.what()));
    }
  }
  return rows;
}

void write_part_row(const fs::path& dir, std::size_t point, const SweepRow& row) {
  write_file_atomically(row_file(dir, point), json_text(row_json(point, row)) + "\n");
}

std::size_t run_part(const Scenario& s, const Trace& measured, const fs::path& dir, int jobs, const MpiSession& mpi) {
  const SweepPoints all = sweep_points_of(s);
  std::vector<std::size_t> missing;
  if (mpi.rank() == 0) {
    const PartManifest m = read_part_manifest(dir);
    missing = missing_points(dir, m.slice);
    spdlog::info("{}: points {}: {} to compute, {} kept from before, {} at a time", s.name, slice_text(m.slice),
                 missing.size(), m.slice.end - m.slice.begin - missing.size(), mpi.size() > 1 ? mpi.size() - 1 : jobs);
  }
  if (mpi.size() > 1) return run_over_mpi(all, measured, dir, missing, mpi);
  return run_locally(all, measured, dir, missing, jobs);
}

MergedSweep merge_parts(const std::vector<fs::path>& parts) {
  if (parts.empty()) throw Error("wisp merge: no parts given");
  MergedSweep out{read_part_manifest(parts[0]), {}};
  std::map<std::size_t, SweepRow> rows;
  for (const fs::path& part : parts) {
    const PartManifest m = read_part_manifest(part);
    if (m.digest != out.manifest.digest || m.total != out.manifest.total)
      throw Error(fmt::format("{}: a part of another sweep ({}, {} points) than {} ({}, {} points)", part.string(),
                              m.scenario, m.total, parts[0].string(), out.manifest.scenario, out.manifest.total));
    rows.merge(read_part_rows(part));  // a point in two parts: the first one's row
  }
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < out.manifest.total; ++i)
    if (rows.count(i))
      out.result.rows.push_back(rows.at(i));
    else
      missing.push_back(i);
  if (!missing.empty())
    throw Error(fmt::format("{}: points {} of {} are missing: run their slices (or rerun with --resume)",
                            parts.size() == 1 ? parts[0].string() : "wisp merge", point_list(missing),
                            out.manifest.total));
  out.manifest.slice = {0, out.manifest.total};
  out.result.best = best_point(out.result.rows);
  return out;
}

void write_best_traces(const Scenario& s, const Trace& measured, const SweepResult& sweep, const fs::path& dir,
                       bool cubes) {
  if (!sweep.best) return;
  const SweepPoints all = sweep_points_of(s);
  const Scenario& best = all.points.at(*sweep.best);
  std::vector<std::string> warnings;  // the cubes' own, said once the rerun is over
  {
    const driver::QuietRerun quiet("writing the best point's traces and cubes: its run again");
    if (!cubes) {
      const PointResult r = run_point(best, measured);
      write_otf2_into(r.scenario_replay.trace, dir / "scenario-trace", WriteOptions{});
      write_otf2_into(r.identity_replay.trace, dir / "identity-trace", WriteOptions{});
      return;
    }
    // The replays, and the analyses for the cubes; each simulated trace written while it exists.
    const PointEvaluation p = evaluate_point(
        best, measured,
        [&](const std::string& name, const Trace& trace, const TraceAnalysis&) {
          if (name != "measured") write_otf2_into(trace, dir / (name + "-trace"), WriteOptions{});
        },
        driver::on_every_core());
    warnings = driver::write_point_cubes(p, dir, "wisp run " + s.file.string());
  }
  for (const std::string& w : warnings) spdlog::warn("{}", w);
}

}  // namespace wisp
