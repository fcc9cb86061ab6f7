// Sweep outputs. See sweep_outputs.hpp.
#include "wisp/driver/sweep_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "wisp/io/json_text.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/report/run_report.hpp"

namespace wisp::driver {

namespace fs = std::filesystem;

namespace {

// One line naming the failed points, if any.
std::string failed_points(const SweepResult& sweep, const fs::path& dir) {
  const std::size_t failed = sweep.failed();
  if (failed == 0) return "";
  const auto first =
      std::find_if(sweep.rows.begin(), sweep.rows.end(), [](const SweepRow& r) { return !r.error.empty(); });
  return fmt::format("{} of {} sweep points failed (see {}/sweep.csv); first: {}", failed, sweep.rows.size(),
                     dir.string(), first->error);
}

}  // namespace

Written commit_report(const nlohmann::json& json, const std::string& text, AtomicDirectory& out) {
  write_file_atomically(out.staging() / "report.json", json_text(json) + "\n");
  write_file_atomically(out.staging() / "report.txt", text);
  out.commit();
  return Written{json, text, "\nwrote " + out.target().string() + "\n", {}, {}};
}

Written write_sweep_outputs(const Scenario& s, const std::string& source, const SweepResult& sweep,
                            AtomicDirectory& out) {
  write_file_atomically(out.staging() / "sweep.csv", sweep_csv(s, sweep));
  write_file_atomically(out.staging() / "report.html", sweep_html(s, source, sweep));
  const nlohmann::json json = sweep_json(s, source, sweep);
  const std::string text = sweep_text(s, source, sweep);
  Written written = commit_report(json, text, out);
  written.failure = failed_points(sweep, out.target());
  return written;
}

}  // namespace wisp::driver
