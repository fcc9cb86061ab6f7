// Conformance with Scalasca 2.6 on a real Score-P trace: every value Scalasca reports for
// ../shared/traces/scorep-ping-pong (scorep-ping-pong.scalasca.tsv: metric, call path under the
// program root "ping-pong.otf2", rank, value) must match wisp's within 1 % or 1 µs, and wisp must
// report no non-zero value for those metrics that Scalasca does not, except the deliberate
// deviations listed below (README.md, "Deviations from Scalasca 2.6 and from the papers").
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "helpers.hpp"
#include "wisp/analysis/analyze.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;

namespace {

using Key = std::tuple<std::string, std::string, Rank>;  // metric, call path, rank

std::map<Key, double> read_reference(const std::filesystem::path& tsv) {
  std::ifstream in(tsv);
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "metric\tcallpath\trank\tvalue");
  const std::string root = "ping-pong.otf2";
  std::map<Key, double> out;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string metric, callpath, rank, value;
    std::getline(s, metric, '\t');
    std::getline(s, callpath, '\t');
    std::getline(s, rank, '\t');
    std::getline(s, value, '\t');
    REQUIRE(callpath.rfind(root, 0) == 0);
    callpath = callpath.size() > root.size() ? callpath.substr(root.size() + 1) : "";
    out[{metric, callpath, static_cast<Rank>(std::stoul(rank))}] = std::stod(value);
  }
  return out;
}

struct Deviation {
  Key key;
  const char* why;
};

// Deliberate deviations. Scalasca computes the completion time of a Late Receiver send as
// leave(send) - leave(receive request) when that is negative, which cuts more than the send call
// out of the next delay interval and loses 14.8 µs of rank 1's Late Receiver wait; wisp clamps
// the completion time at 0 (like every other completion time) and books the whole wait.
const Deviation kDeviations[] = {
    {{"delay_latereceiver", "int main(int, char**)/MPI_Send", 0},
     "Late Receiver completion time clamped at 0: rank 1's whole Late Receiver wait is booked"},
};

}  // namespace

TEST_CASE("Scalasca conformance on the Score-P ping-pong trace", "[analysis][scalasca]") {
  const auto dir = test::shared_trace("scorep-ping-pong");
  const auto tsv = test::shared_trace("scorep-ping-pong.scalasca.tsv");
  if (dir.empty() || tsv.empty()) return;
  const Trace t = read_otf2(dir);
  const Analysis a = analyze(t);
  const MetricTable table = metric_table(a);
  const std::map<Key, double> reference = read_reference(tsv);

  std::map<Key, double> wisp_values;
  for (const MetricRecord& r : table.records)
    wisp_values[{table.metrics[r.metric], metric_callpath_name(t.defs, r.callpath), r.rank}] += r.value;
  std::set<std::string> compared;
  for (const auto& [key, v] : reference) compared.insert(std::get<0>(key));
  std::map<Key, double> keys = reference;
  for (const auto& [key, v] : wisp_values)
    if (compared.count(std::get<0>(key))) keys.emplace(key, 0.0);

  std::size_t matched = 0;
  for (const auto& [key, unused] : keys) {
    const double ref = reference.count(key) ? reference.at(key) : 0.0;
    const double mine = wisp_values.count(key) ? wisp_values.at(key) : 0.0;
    const auto* dev = std::find_if(std::begin(kDeviations), std::end(kDeviations),
                                   [&](const Deviation& d) { return d.key == key; });
    INFO(std::get<0>(key) << " @ '" << std::get<1>(key) << "' rank " << std::get<2>(key)
                          << ": Scalasca " << ref << ", wisp " << mine);
    if (dev != std::end(kDeviations)) {
      INFO("documented deviation: " << dev->why);
      CHECK(std::abs(mine - ref) > std::max(0.01 * std::abs(ref), 1e-6));
      continue;
    }
    CHECK(std::abs(mine - ref) <= std::max(0.01 * std::abs(ref), 1e-6));
    ++matched;
  }
  CHECK(matched == reference.size() - std::size(kDeviations));
  CHECK(reference.size() == 88);

  // The deviation, checked against what wisp intends: rank 1's Late Receiver waiting time is
  // booked entirely as short-term delay (rank 0 spent it in MPI_Send before posting the receive).
  const double lr_rank1 = wisp_values.at({"mpi_latereceiver", "int main(int, char**)/MPI_Send", 1});
  CHECK(wisp_values.at({"delay_latereceiver", "int main(int, char**)/MPI_Send", 0}) == Approx(lr_rank1));
  CHECK(a.delays.unattributed == 0);
  CHECK(a.delays.short_sum + a.delays.long_sum == Approx(a.delays.total_wait));
  // Scalasca's critical path: Enter of MPI_Init on rank 1 to the last Enter of MPI_Finalize.
  CHECK(a.critical_path.end_rank == 1);
  CHECK(a.critical_path.length == Approx(417969632.0 / 2095197216.0).epsilon(1e-12));
}
