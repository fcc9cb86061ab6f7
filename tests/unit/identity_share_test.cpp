// An identity run sent between the ranks of an MPI job (identity_share.hpp): the bytes give back
// the runtime and every call's residual exactly, a scenario replayed next to the received identity
// ends where it ends next to the original, and bytes cut short or of another trace are one error.
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
