// Shared test helpers: temporary directories, the shared real traces (skipped when absent),
// running the wisp CLI and capturing its output, finding a call path by name.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "wisp/analysis/activity_graph.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::test {

// A fresh directory removed at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// tests/data/<name>: a real trace (or Scalasca result) copied with its origin (tests/data/README.md).
// A missing one fails the test: the data is part of the repository.
std::filesystem::path real_trace(const std::string& name);

struct CommandResult {
  int exit_code = 0;
  std::string out;  // stdout
  std::string err;  // stderr
};
// A shell command's exit code, stdout and stderr (through files in `tmp`).
CommandResult shell(const std::string& command, const std::filesystem::path& tmp);
// Runs the built `wisp` with the given argument string (shell-quoted by the caller).
CommandResult run_wisp(const std::string& args);

// The lines otf2-print (the Debian package otf2-tools) prints with `options` ("-L 1", "-G"); nullopt
// if it fails.
std::optional<std::vector<std::string>> otf2_print_lines(const std::filesystem::path& anchor,
                                                         const std::string& options = "");
// Per OTF2 location: its event records counted by record name, as otf2-print (the Debian package
// otf2-tools) lists them; nullopt if otf2-print fails or prints no record.
using PrintedCounts = std::map<std::uint64_t, std::map<std::string, std::uint64_t>>;
std::optional<PrintedCounts> otf2_print_counts(const std::filesystem::path& anchor);

// The trace-anchored identity replay of a measured trace on its calibrated platform (what
// `wisp simulate` runs by default).
ReplayResult anchored_identity(const Trace& measured);

// A measured archive, its anchored identity written to out/"id", and both archives' otf2-print
// counts (the test fails if otf2-print fails).
struct WrittenIdentity {
  Trace measured;
  ReplayResult identity;
  PrintedCounts before, after;
};
WrittenIdentity written_identity(const std::filesystem::path& archive, const TempDir& out);

// The call path named `name` in `t` (fails the test if there is none).
CallpathId callpath(const Trace& t, const std::string& name);

// Activities as values (from, to, duration, call path, kind): ids differ between two graphs that
// store the same activities differently (chains or records, with or without a second variant).
using ActivityValues = std::vector<std::tuple<std::uint32_t, std::uint32_t, Ticks, CallpathId, ActivityKind>>;
ActivityValues activity_values(const ActivityGraph& g, const std::vector<std::uint32_t>& ids);
// critical_path_method(g, ...) with its zero-slack marks by the sweep alone and by the walk alone
// both give `critical`.
void require_zero_slack_ways_agree(const ActivityGraph& g, const std::vector<std::uint32_t>& critical);

}  // namespace wisp::test
