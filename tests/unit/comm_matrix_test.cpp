// The communication matrix, against the generators' exchange pattern (worked out by hand).
#include <catch2/catch.hpp>

#include "wisp/analysis/comm_matrix.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;

// halo on a periodic 4x2 grid: every rank sends one message of `bytes` to each of its 4 neighbours
// (left, right, up, down; with 2 rows "up" and "down" are the same rank, so that pair carries 2
// messages per step) in every step.
TEST_CASE("communication matrix of a halo exchange: messages and bytes per pair, by hand") {
  gen::HaloOptions o;
  o.dims = {4, 2};
  o.steps = 10;
  o.bytes = 1000;
  const CommMatrix m = communication_matrix(gen::generate_halo(o));
  CHECK(m.ranks == 8);
  CHECK(m.messages == 8 * 4 * 10);
  CHECK(m.bytes == 8 * 4 * 10 * 1000);
  // Rank 0 at (0, 0): left 3, right 1, and rank 4 above and below.
  std::map<Rank, std::uint64_t> from0;
  for (const CommPair& p : m.pairs)
    if (p.from == 0) from0[p.to] = p.messages;
  CHECK(from0 == std::map<Rank, std::uint64_t>{{1, 10}, {3, 10}, {4, 20}});
  for (std::size_t k = 1; k < m.pairs.size(); ++k)
    CHECK(std::make_pair(m.pairs[k - 1].from, m.pairs[k - 1].to) < std::make_pair(m.pairs[k].from, m.pairs[k].to));
}
