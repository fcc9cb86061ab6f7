// A program activity graph spread over processes (threads stand in for MPI ranks), glued at its
// ghosts, is the whole trace's graph: every event's earliest time and tail (longest path from the
// start and to the end), from the parts' forward and backward sweeps, equal the CPM of the whole
// graph, in both variants, on a hand-built trace with every kind of dependency, generated traces
// and real ones, over 2 to 4 and 7 processes, the values crossing point to point (one per message) and in
// rounds.
#include <catch2/catch.hpp>

#include "analysis/ghost_sweep.hpp"
#include "helpers.hpp"
#include "spread_traces.hpp"
#include "thread_group.hpp"
#include "wisp/analysis/cpm.hpp"
#include "wisp/analysis/pag.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Earliest times and tails of a graph's variant, vertex by vertex, from the whole graph.
struct Times {
  std::vector<Ticks> earliest, tail;
};
Times whole_times(const ActivityGraph& g, Variant variant) {
  Times t;
  longest_path(
      g, [](const Activity& a) { return a.duration; }, t.earliest, variant);
  t.tail.assign(g.vertex_count, 0);
  g.for_each_in_reverse_order([&](std::uint32_t v) {
    g.for_each_outgoing(
        v, [&](std::uint32_t, const Activity& a) { t.tail[v] = std::max(t.tail[v], t.tail[a.to] + a.duration); },
        variant);
  });
  return t;
}

void require_glued_equals_whole(const fs::path& path, const PagOptions& options, std::vector<int> counts = {2, 3, 4, 7},
                                bool rounds = true) {
  const Trace whole_trace = read_otf2(path);
  const Pag whole = build_pag(whole_trace, options);
  for (const Variant variant : {kFirstVariant, kSecondVariant}) {
    if (!(whole.graph.variants & variant)) continue;
    const Times expected = whole_times(whole.graph, variant);
    for (const int processes : counts) {
      for (const GhostTransport transport : {GhostTransport::PointToPoint, GhostTransport::Rounds}) {
        if (transport == GhostTransport::Rounds && !rounds) continue;
        INFO(path.string() << " over " << processes << " processes, variant " << int(variant) << ", "
                           << (transport == GhostTransport::Rounds ? "rounds" : "point to point"));
        std::vector<std::string> wrong(static_cast<std::size_t>(processes));
        test::on_processes(processes, [&](ProcessGroup& group) {
          ReadOptions o;
          o.group = &group;
          o.threads = 1;
          const Trace trace = read_otf2(path, o);
          const Pag part = build_pag(trace, options, group);
          std::vector<Ticks> earliest(part.graph.vertex_count, -1), tail(part.graph.vertex_count, -1);
          const auto relax = [](Ticks& into, Ticks from, const Activity& a) {
            into = std::max(into, from + a.duration);
          };
          REQUIRE(GhostSweep<Ticks>(part, variant, group, transport, 1).run(relax, [&](std::uint32_t v, Ticks e) {
            earliest[v] = e;
          }));
          REQUIRE(GhostSweep<Ticks, Sweep::Backward>(part, variant, group, transport, 1)
                      .run(relax, [&](std::uint32_t v, Ticks t) { tail[v] = t; }));
          std::string& w = wrong[static_cast<std::size_t>(group.process())];
          for (Rank r = trace.share->first; r < trace.share->last; ++r)
            for (EventIndex i = 0; i < trace.ranks[r].events.size(); ++i) {
              const std::uint32_t mine = part.vertex(r, i), theirs = whole.vertex(r, i);
              if (earliest[mine] != expected.earliest[theirs] || tail[mine] != expected.tail[theirs])
                w += " rank " + std::to_string(r) + " event " + std::to_string(i);
            }
        });
        for (const std::string& w : wrong) CHECK(w.empty());
      }
    }
  }
}

}  // namespace

TEST_CASE("a PAG spread over processes, glued at its ghosts, is the whole trace's", "[analysis][processes][pag]") {
  TempDir dir;
  write_otf2(test::every_dependency(), dir / "every");
  PagOptions both;
  both.ideal_eager_limit = 1 << 12;
  require_glued_equals_whole(dir / "every", both);
  require_glued_equals_whole(dir / "every", eager_limit_options(0));
  write_otf2(gen::generate_halo(test::spread_halo()), dir / "halo");
  require_glued_equals_whole(dir / "halo", both, {2, 7});
  write_otf2(gen::generate_wavefront(gen::WavefrontOptions{}), dir / "wavefront");
  require_glued_equals_whole(dir / "wavefront", PagOptions{});
  for (const char* name : test::kSpreadRealTraces) require_glued_equals_whole(test::real_trace(name), both, {3}, false);
}
