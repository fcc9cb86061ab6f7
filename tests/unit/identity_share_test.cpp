// An identity run sent between the ranks of an MPI job (identity_share.hpp): the bytes give back
// the runtime and every call's residual, network part and partner wait exactly, a scenario replayed next to the
// received identity ends where it ends next to the original, and bytes cut short or of another trace are one error.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "wisp/driver/identity_share.hpp"
#include "wisp/error.hpp"
#include "wisp/scenario/trace_source.hpp"

using namespace wisp;
using wisp::test::TempDir;

namespace {

const char* kScenario = R"(wisp: 1
name: share
trace:
  generate: imbalance --ranks 4 --iterations 5
platform: {latency: 1e-6, bandwidth: 1e10, overhead: 1e-6}
transforms:
  - zero: {region: work}
)";

}  // namespace

TEST_CASE("identity_share: an identity run survives the bytes exactly", "[scenario][mpi]") {
  TempDir dir;
  const Scenario s = parse_scenario(kScenario, dir / "share.yaml");
  const ScenarioTrace in = load_trace(s);
  const IdentityRun original = run_identity(s, in.trace);
  REQUIRE(original.replay.residuals);
  const std::string bytes = encode_identity(original);
  const IdentityRun received = decode_identity(bytes, s, in.trace);

  CHECK(received.replay.runtime == original.replay.runtime);
  REQUIRE(received.replay.residuals);
  CHECK(received.replay.residuals->by_rank == original.replay.residuals->by_rank);
  // A platform change moves what the model left of each call's network part, and a partner's lateness is re-derived:
  // both come along.
  const CallResiduals &got = *received.replay.residuals, &sent = *original.replay.residuals;
  REQUIRE(sent.network.size() == in.trace.rank_count());
  CHECK(got.network == sent.network);
  REQUIRE(got.waits.size() == in.trace.rank_count());
  for (std::size_t r = 0; r < sent.waits.size(); ++r) {
    REQUIRE(got.waits[r].size() == sent.waits[r].size());
    for (std::size_t k = 0; k < sent.waits[r].size(); ++k) {
      CHECK(got.waits[r][k].call == sent.waits[r][k].call);
      CHECK(got.waits[r][k].partner == sent.waits[r][k].partner);
      CHECK(got.waits[r][k].dependent == sent.waits[r][k].dependent);
    }
  }
  CHECK(received.platform.description == original.platform.description);

  const Transformed t = apply_transforms(in.trace, s.transforms);
  const PointResult a = run_scenario(s, in.trace, t, original);
  const PointResult b = run_scenario(s, in.trace, t, received);
  CHECK(b.identity == a.identity);
  CHECK(b.scenario == a.scenario);
  CHECK(a.scenario < a.identity);  // the zeroed work is a gain

  CHECK_THROWS_WITH(decode_identity(bytes.substr(0, bytes.size() - 3), s, in.trace), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(decode_identity(bytes + "x", s, in.trace), Catch::Contains("left over"));
  const Scenario other = parse_scenario(
      std::string(kScenario).replace(std::string(kScenario).find("--ranks 4"), 9, "--ranks 3"), dir / "other.yaml");
  CHECK_THROWS_WITH(decode_identity(bytes, other, load_trace(other).trace), Catch::Contains("another trace"));
}
