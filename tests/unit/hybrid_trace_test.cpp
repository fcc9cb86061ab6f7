// Hybrid MPI+OpenMP+CUDA traces written by Score-P 1.3/1.4 (../shared/traces/other-writers/casita-2_*):
// every location is read — the ranks' master threads into the model, their OpenMP threads and CUDA
// streams counted — and the counts agree with OTF2's own otf2-print record by record; every MPI
// message is matched; the master threads replay to the measured runtime.
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <sstream>

#include "helpers.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/replay/trust.hpp"

using namespace wisp;

namespace {

// Per OTF2 location: record counts by record name, as otf2-print lists the events.
using PrintedCounts = std::map<std::uint64_t, std::map<std::string, std::uint64_t>>;

std::optional<PrintedCounts> otf2_print(const std::filesystem::path& anchor) {
  FILE* p = popen(("otf2-print '" + anchor.string() + "' 2>/dev/null").c_str(), "r");
  if (!p) return std::nullopt;
  PrintedCounts counts;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::istringstream in(line);
    std::string record, location;
    if (!(in >> record >> location) || location.find_first_not_of("0123456789") != std::string::npos) continue;
    ++counts[std::stoull(location)][record];
  }
  if (pclose(p) != 0 || counts.empty()) return std::nullopt;
  return counts;
}

std::uint64_t sum(const std::map<std::string, std::uint64_t>& by_record, bool modelled_only) {
  std::uint64_t n = 0;
  for (const auto& [record, count] : by_record)
    if (!modelled_only || record == "ENTER" || record == "LEAVE" || record.starts_with("MPI_")) n += count;
  return n;
}

}  // namespace

TEST_CASE("hybrid traces: every location read and counted as otf2-print counts it, every message matched",
          "[otf2][hybrid][real]") {
  for (const char* name : {"other-writers/casita-2_cuda_simple", "other-writers/casita-2_jacobi_blame_cpu_015"}) {
    const auto dir = test::shared_trace(name);
    if (dir.empty()) continue;
    INFO(name);
    const Trace t = read_otf2(dir);
    const auto printed = otf2_print(dir / "traces.otf2");
    if (!printed) {
      WARN("SKIPPED: otf2-print (Debian package otf2-tools) is not available");
      return;
    }
    REQUIRE(t.rank_count() == 2);
    CHECK(t.defs.paradigms == std::vector<std::string>{"OpenMP", "MPI", "CUDA"});
    std::uint64_t sends = 0;
    for (Rank r = 0; r < 2; ++r) {
      const Location& rank = t.defs.ranks[r];
      const auto& master = printed->at(rank.otf2_id);
      CHECK(t.ranks[r].events.size() == sum(master, true));  // Enter, Leave and MPI records
      sends += master.count("MPI_SEND") ? master.at("MPI_SEND") : 0;
      std::size_t streams = 0;
      for (const ThreadLocation& other : rank.others) {
        INFO(other.name);
        CHECK(other.records == sum(printed->at(other.otf2_id), false));
        streams += other.kind == LocationKind::AcceleratorStream;
      }
      CHECK(streams == 1);
      CHECK(rank.others.size() + 1 == printed->size() / 2);  // both processes: master + the same others
    }
    CHECK(t.messages.size() == sends);
    CHECK(t.anomalies.total() == 0);
  }
}

TEST_CASE("hybrid traces: the anchored identity of the master threads is the measured run", "[replay][hybrid][real]") {
  for (const char* name : {"other-writers/casita-2_cuda_simple", "other-writers/casita-2_jacobi_blame_cpu_015"}) {
    const auto dir = test::shared_trace(name);
    if (dir.empty()) continue;
    INFO(name);
    const Trace measured = read_otf2(dir);
    const Calibration c = calibrate(measured);
    ReplayOptions o;
    o.anchor = true;
    o.algorithms = c.algorithms;
    const ReplayResult id = replay(measured, c.platform, o);
    CHECK(std::abs(identity_error(measured.end_time(), id.runtime)) < 1e-3);
  }
}
