// OTF2 writer + reader: every generator's trace survives write -> read, and a trace read from
// OTF2 is reproduced exactly by another write -> read; otf2-print accepts what wisp writes.
#include <catch2/catch.hpp>

#include <cmath>

#include "helpers.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::TempDir;

namespace {

// Structural equality of two traces; times equal within `tolerance` seconds.
void require_same(const Trace& a, const Trace& b, double tolerance) {
  REQUIRE(a.rank_count() == b.rank_count());
  REQUIRE(a.defs.regions.size() == b.defs.regions.size());
  for (std::size_t i = 0; i < a.defs.regions.size(); ++i) {
    CHECK(a.defs.regions[i].name == b.defs.regions[i].name);
    CHECK(a.defs.regions[i].kind == b.defs.regions[i].kind);
  }
  REQUIRE(a.defs.comms.size() == b.defs.comms.size());
  for (std::size_t c = 0; c < a.defs.comms.size(); ++c) {
    CHECK(a.defs.comms[c].name == b.defs.comms[c].name);
    CHECK(a.defs.comms[c].members == b.defs.comms[c].members);
    CHECK(a.defs.comms[c].self == b.defs.comms[c].self);
  }
  CHECK(a.defs.world == b.defs.world);
  REQUIRE(a.defs.callpaths.size() == b.defs.callpaths.size());
  std::size_t mismatches = 0;
  for (Rank r = 0; r < a.rank_count(); ++r) {
    const auto& ea = a.ranks[r].events;
    const auto& eb = b.ranks[r].events;
    REQUIRE(ea.size() == eb.size());
    for (std::size_t i = 0; i < ea.size(); ++i) {
      // Call-path ids depend on the order ranks were built in; compare call paths by name.
      const bool region_event = ea[i].kind == EventKind::Enter || ea[i].kind == EventKind::Leave;
      const bool same_ref =
          region_event ? a.defs.callpath_name(ea[i].ref) == b.defs.callpath_name(eb[i].ref) : ea[i].ref == eb[i].ref;
      const bool same = ea[i].kind == eb[i].kind && same_ref && std::abs(ea[i].time - eb[i].time) <= tolerance;
      if (!same && ++mismatches < 5) FAIL_CHECK("rank " << r << " event " << i << " differs");
    }
    REQUIRE(a.ranks[r].p2p.size() == b.ranks[r].p2p.size());
    for (std::size_t i = 0; i < a.ranks[r].p2p.size(); ++i) {
      const P2P& x = a.ranks[r].p2p[i];
      const P2P& y = b.ranks[r].p2p[i];
      CHECK((x.peer == y.peer && x.comm == y.comm && x.tag == y.tag && x.bytes == y.bytes && x.request == y.request &&
             x.event == y.event && x.message == y.message));
    }
    REQUIRE(a.ranks[r].collectives.size() == b.ranks[r].collectives.size());
    for (std::size_t i = 0; i < a.ranks[r].collectives.size(); ++i) {
      const auto& x = a.ranks[r].collectives[i];
      const auto& y = b.ranks[r].collectives[i];
      CHECK((x.op == y.op && x.comm == y.comm && x.root == y.root && x.sent == y.sent && x.received == y.received &&
             x.instance == y.instance));
    }
  }
  CHECK(mismatches == 0);
  CHECK(a.messages.size() == b.messages.size());
  CHECK(a.collectives.size() == b.collectives.size());
  CHECK(a.anomalies.total() == b.anomalies.total());
}

Trace round_trip(const Trace& t, const TempDir& dir, const std::string& name) {
  write_otf2(t, dir / name);
  return read_otf2(dir / name);
}

}  // namespace

TEST_CASE("every generator's trace round-trips through OTF2") {
  TempDir dir;
  gen::ImbalanceOptions imb;
  imb.ranks = 6;
  imb.iterations = 12;
  imb.mode = "dynamic";
  imb.launch_jitter = 2e-4;
  gen::WavefrontOptions wave;
  wave.px = 3;
  wave.py = 2;
  wave.iterations = 2;
  wave.extra_ranks = {0, 3};
  wave.extra = 0.5;
  gen::MpmdOptions mpmd;
  mpmd.particle_ranks = 3;
  mpmd.mesh_ranks = 2;
  mpmd.steps = 4;
  gen::HaloOptions halo;
  halo.dims = {2, 2, 2};
  halo.steps = 3;
  halo.cxx_names = true;
  halo.bytes = 100000;  // rendezvous
  gen::PhasesOptions phases;
  phases.ranks = 4;
  phases.iterations = 3;
  const std::vector<std::pair<std::string, Trace>> traces = {{"imbalance", gen::generate_imbalance(imb)},
                                                             {"wavefront", gen::generate_wavefront(wave)},
                                                             {"mpmd", gen::generate_mpmd(mpmd)},
                                                             {"halo", gen::generate_halo(halo)},
                                                             {"phases", gen::generate_phases(phases)}};
  for (const auto& [name, generated] : traces) {
    SECTION(name) {
      CHECK(generated.anomalies.total() == 0);
      const Trace once = round_trip(generated, dir, name + "-1");
      // Generated times are already on the 1 ns clock grid: equal to a rounding error.
      require_same(generated, once, 1e-12);
      const Trace twice = round_trip(once, dir, name + "-2");
      require_same(once, twice, 0.0);  // exactly identical
      const std::string cmd = "otf2-print " + (dir / (name + "-1") / "traces.otf2").string() + " >/dev/null 2>&1";
      CHECK(std::system(cmd.c_str()) == 0);
    }
  }
}

TEST_CASE("C++ region names with commas, templates and operators survive") {
  TempDir dir;
  gen::HaloOptions halo;
  halo.dims = {2, 1};
  halo.steps = 1;
  halo.cxx_names = true;
  const Trace t = round_trip(gen::generate_halo(halo), dir, "cxx");
  CHECK(t.defs.find_region(gen::halo_compute_name(true)).has_value());
  CHECK(t.defs.find_region("Halo::operator()(Field const&, std::pair<int, int>) const").has_value());
}

TEST_CASE("writing is atomic and refuses to overwrite without force") {
  TempDir dir;
  gen::ImbalanceOptions o;
  o.ranks = 2;
  o.iterations = 2;
  const Trace t = gen::generate_imbalance(o);
  write_otf2(t, dir / "out");
  CHECK_THROWS_WITH(write_otf2(t, dir / "out"), Catch::Contains("exists and is not empty"));
  WriteOptions force;
  force.force = true;
  CHECK_NOTHROW(write_otf2(t, dir / "out", force));
  // A failed write (a trace without MPI_COMM_WORLD) leaves nothing under the final name.
  Trace broken = t;
  broken.defs.world = kNone;
  CHECK_THROWS_AS(write_otf2(broken, dir / "broken"), Error);
  CHECK_FALSE(std::filesystem::exists(dir / "broken"));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find("partial") == std::string::npos);
}
