// A PAG whose ranks' activities are added in parts side by side (PagOptions::threads) is the PAG of
// one pass over the ranks: the same explicit activities in the same order (ids), with the same
// "listed before the chain" flags, the same chain columns and values kept aside, the same calls,
// anomalies and topological order. Generated traces (messages, rendezvous, collectives, receives
// before their sends, chains longer than 32 bits of ticks, more parts than ranks) and shared real ones.
#include <catch2/catch.hpp>

#include "generators/generators.hpp"
#include "helpers.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/io/otf2_reader.hpp"

using namespace wisp;

namespace {

void require_same_activities(const ActivityGraph& a, const ActivityGraph& b) {
  REQUIRE(a.explicit_count() == b.explicit_count());
  for (std::uint32_t k = 0; k < a.explicit_count(); ++k) {
    INFO("explicit activity " << k);
    const Activity& x = a.activities[k];
    const Activity& y = b.activities[k];
    CHECK(x.duration == y.duration);
    CHECK(x.from == y.from);
    CHECK(x.to == y.to);
    CHECK(x.callpath == y.callpath);
    CHECK(x.kind == y.kind);
    CHECK(x.before_source_chain == y.before_source_chain);
    CHECK(x.before_target_chain == y.before_target_chain);
    CHECK(x.variants == y.variants);
  }
}

void require_same_pag(const Pag& a, const Pag& b) {
  require_same_activities(a.graph, b.graph);
  CHECK(a.graph.vertex_count == b.graph.vertex_count);
  CHECK(a.graph.variants == b.graph.variants);
  CHECK(a.graph.chain_duration == b.graph.chain_duration);
  CHECK(a.graph.chain_callpath == b.graph.chain_callpath);
  CHECK(a.graph.chain_kind == b.graph.chain_kind);
  CHECK(a.graph.long_chains == b.graph.long_chains);
  CHECK(a.graph.wide_callpaths == b.graph.wide_callpaths);
  CHECK(a.graph.out == b.graph.out);
  CHECK(a.graph.in == b.graph.in);
  REQUIRE(a.graph.order.size() == b.graph.order.size());
  for (std::size_t i = 0; i < a.graph.order.size(); ++i) {
    CHECK(a.graph.order[i].first == b.graph.order[i].first);
    CHECK(a.graph.order[i].count == b.graph.order[i].count);
  }
  CHECK(a.time == b.time);
  CHECK(a.first_vertex == b.first_vertex);
  CHECK(a.origin == b.origin);
  CHECK(a.ideal_variant == b.ideal_variant);
  CHECK(a.anomalies.receive_before_send == b.anomalies.receive_before_send);
  CHECK(a.anomalies.inconsistent_collectives == b.anomalies.inconsistent_collectives);
  CHECK(a.anomalies.cycle_activities == b.anomalies.cycle_activities);
  REQUIRE(a.calls.size() == b.calls.size());
  for (std::size_t r = 0; r < a.calls.size(); ++r) {
    REQUIRE(a.calls[r].size() == b.calls[r].size());
    for (std::size_t c = 0; c < a.calls[r].size(); ++c) {
      CHECK(a.calls[r][c].enter == b.calls[r][c].enter);
      CHECK(a.calls[r][c].leave == b.calls[r][c].leave);
      CHECK(a.calls[r][c].ideal_release == b.calls[r][c].ideal_release);
    }
  }
}

// The same PAG in 1 part and in 2, 3 and 100 parts (more than the ranks: one rank per part).
void require_parts_agree(const Trace& t, PagOptions options) {
  options.threads = 1;
  const Pag one = build_pag(t, options);
  for (unsigned parts : {2u, 3u, 100u}) {
    INFO(parts << " parts");
    options.threads = parts;
    require_same_pag(one, build_pag(t, options));
  }
}

}  // namespace

TEST_CASE("a PAG built in parts side by side is the PAG of one pass, generated traces", "[pag]") {
  gen::HaloOptions halo;  // 128 KiB messages: rendezvous under the observed rule and the eager limit
  halo.dims = {4, 3};
  halo.steps = 12;
  halo.bytes = 131072;
  halo.launch_jitter = 1e-3;
  halo.overload_ranks = {0, 5};
  halo.overload = 0.4;
  const Trace h = gen::generate_halo(halo);
  PagOptions observed;
  require_parts_agree(h, observed);
  PagOptions both;
  both.ideal_eager_limit = 1000;
  both.vertex_times = false;
  require_parts_agree(h, both);
  PagOptions eager;
  eager.rendezvous = RendezvousRule::EagerLimit;
  eager.eager_limit = 1000;
  require_parts_agree(h, eager);
  require_parts_agree(gen::generate_wavefront({}), both);
  require_parts_agree(gen::generate_mpmd({}), both);
  require_parts_agree(gen::generate_phases({}), both);

  gen::HaloOptions slow;  // 6 s of compute between events: chain durations beyond 32 bits of ticks
  slow.dims = {3, 2};
  slow.steps = 3;
  slow.work = 6.0;
  const Trace s = gen::generate_halo(slow);
  REQUIRE(build_pag(s).graph.long_chains.size() > 0);
  require_parts_agree(s, both);

  Trace skewed = gen::generate_halo(halo);  // receives that end before their sends start
  for (Event& e : skewed.ranks[1].events) e.time -= 0.5;
  REQUIRE(build_pag(skewed).anomalies.receive_before_send > 0);
  require_parts_agree(skewed, both);
}

TEST_CASE("a PAG built in parts side by side is the PAG of one pass, real traces", "[pag]") {
  for (const char* name : {"apps/sweep3d_50c_6r", "apps/cloverleaf_bm_short_4r", "apps/minife_100c_imb20_4r",
                           "other-writers/casita-10_scorep_mpi_tags", "scorep-ping-pong"}) {
    const std::filesystem::path dir = test::shared_trace(name);
    if (dir.empty()) continue;
    INFO(name);
    const Trace t = read_otf2(dir);
    PagOptions both;
    both.ideal_eager_limit = 65536;
    require_parts_agree(t, both);
  }
}
