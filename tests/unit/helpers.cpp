// Shared test helpers. See helpers.hpp.
#include "helpers.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

#include "wisp/analysis/cpm.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/calibrate.hpp"

namespace wisp::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() / ("wisp-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path real_trace(const std::string& name) {
  const fs::path p = fs::path(WISP_SOURCE_DIR) / "tests" / "data" / name;
  INFO("real trace " << p.string() << " (tests/data/README.md)");
  REQUIRE(fs::exists(p));
  return p;
}

CommandResult shell(const std::string& command, const std::filesystem::path& tmp) {
  const std::string cmd = "(" + command + ") >" + (tmp / "sh.out").string() + " 2>" + (tmp / "sh.err").string();
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.out = read_file(tmp / "sh.out").value_or("");
  r.err = read_file(tmp / "sh.err").value_or("");
  return r;
}

CommandResult run_wisp(const std::string& args) {
  TempDir tmp;
  return shell(std::string(WISP_CLI) + " " + args, tmp.path());
}

std::optional<std::vector<std::string>> otf2_print_lines(const std::filesystem::path& anchor,
                                                         const std::string& options) {
  FILE* p = popen(("otf2-print " + options + " '" + anchor.string() + "' 2>/dev/null").c_str(), "r");
  if (!p) return std::nullopt;
  std::vector<std::string> lines;
  char line[8192];
  while (std::fgets(line, sizeof line, p)) {
    line[std::strcspn(line, "\n")] = '\0';
    lines.emplace_back(line);
  }
  if (pclose(p) != 0) return std::nullopt;
  return lines;
}

std::optional<PrintedCounts> otf2_print_counts(const std::filesystem::path& anchor) {
  const auto lines = otf2_print_lines(anchor);
  if (!lines) return std::nullopt;
  PrintedCounts counts;
  for (const std::string& line : *lines) {
    std::istringstream in(line);
    std::string record, location;
    if (!(in >> record >> location) || location.find_first_not_of("0123456789") != std::string::npos) continue;
    ++counts[std::stoull(location)][record];
  }
  if (counts.empty()) return std::nullopt;
  return counts;
}

ReplayResult anchored_identity(const Trace& measured) {
  const Calibration c = calibrate(measured);
  ReplayOptions o;
  o.anchor = true;
  o.algorithms = c.algorithms;
  return replay(measured, c.platform, o);
}

WrittenIdentity written_identity(const std::filesystem::path& archive, const TempDir& out) {
  WrittenIdentity w{read_otf2(archive), {}, {}, {}};
  w.identity = anchored_identity(w.measured);
  write_otf2(w.identity.trace, out / "id");
  const auto before = otf2_print_counts(archive / "traces.otf2");
  const auto after = otf2_print_counts(out / "id" / "traces.otf2");
  INFO("otf2-print is the Debian package otf2-tools (bash scripts/setup.sh installs it)");
  REQUIRE((before && after));
  w.before = *before, w.after = *after;
  return w;
}

CallpathId callpath(const Trace& t, const std::string& name) {
  const auto c = t.defs.find_callpath(name);
  if (!c) FAIL("no call path " << name);
  return *c;
}

ActivityValues activity_values(const ActivityGraph& g, const std::vector<std::uint32_t>& ids) {
  ActivityValues out;
  for (std::uint32_t id : ids) {
    const Activity a = g.activity(id);
    out.emplace_back(a.from, a.to, a.duration, a.callpath, a.kind);
  }
  return out;
}

void require_zero_slack_ways_agree(const ActivityGraph& g, const std::vector<std::uint32_t>& critical) {
  for (double walk_share : {0.0, 1.0}) {
    std::vector<std::uint32_t> by;
    critical_path_method(g, by, walk_share);
    CHECK(by == critical);
  }
}

}  // namespace wisp::test
