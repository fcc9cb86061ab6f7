// A program activity graph spread over processes (threads stand in for MPI ranks), glued at its
// ghosts, is the whole trace's graph: every event's earliest time and tail (longest path from the
// start and to the end), from the parts' forward and backward sweeps, equal the CPM of the whole
// graph, in both variants, on a hand-built trace with every kind of dependency, generated traces
// and real ones, over 2 to 4 and 7 processes, the values crossing point to point (one per message) and in
// rounds; the same when the sweeps cross a chain's inside at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <set>

#include "analysis/ghost_sweep.hpp"
#include "helpers.hpp"
#include "reference_cpm.hpp"
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

// This process's share of the trace at `path`.
Trace read_share(const fs::path& path, ProcessGroup& group) {
  ReadOptions o;
  o.group = &group;
  o.threads = 1;
  return read_otf2(path, o);
}

// Earliest times and tails of a graph's variant, vertex by vertex, from the whole graph.
struct Times {
  std::vector<Ticks> earliest, tail;
};
Times whole_times(const ActivityGraph& g, Variant variant) {
  Times t;
  test::longest_path(
      g, [](const Activity& a) { return a.duration; }, t.earliest, variant);
  t.tail.assign(g.vertex_count, 0);
  for (auto run = g.order.rbegin(); run != g.order.rend(); ++run)
    for (std::uint32_t v = run->first + run->count; v-- > run->first;)
      g.for_each_outgoing(
          v, [&](std::uint32_t, const Activity& a) { t.tail[v] = std::max(t.tail[v], t.tail[a.to] + a.duration); },
          variant);
  return t;
}

void require_glued_equals_whole(const fs::path& path, const PagOptions& options, std::vector<int> counts = {2, 3, 4, 7},
                                bool rounds = true, bool expected_crossing = true) {
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
        std::atomic<std::size_t> skipped = 0;
        test::on_processes(processes, [&](ProcessGroup& group) {
          const Trace trace = read_share(path, group);
          const Pag part = build_pag(trace, options, group);
          std::vector<Ticks> earliest(part.graph.vertex_count, -1), tail(part.graph.vertex_count, -1);
          const auto relax = [](Ticks& into, Ticks from, const Activity& a) {
            into = std::max(into, from + a.duration);
          };
          GhostSweep<Ticks> forward(part, variant, group, transport, 1);
          GhostSweep<Ticks, Sweep::Backward> backward(part, variant, group, transport, 1);
          REQUIRE(forward.run(relax, [&](std::uint32_t v, Ticks e) { earliest[v] = e; }));
          REQUIRE(backward.run(relax, [&](std::uint32_t v, Ticks t) { tail[v] = t; }));
          // Crossing a chain's inside at once (the same sweeps run again): the same values where
          // visited; skipped are the vertices not kept whose next (backward: previous) vertex is not
          // kept either.
          const ChainTails kept = kept_vertices(part.graph);
          const auto cross = [&](Ticks& carried, std::uint32_t lo, std::uint32_t hi) {
            for (std::uint32_t x = lo; x < hi; ++x) carried += part.graph.chain_duration_of(x);
          };
          std::vector<Ticks> early(part.graph.vertex_count, -1), late(part.graph.vertex_count, -1);
          REQUIRE(forward.run(
              relax, [&](std::uint32_t v, Ticks e) { early[v] = e; }, &kept, cross));
          REQUIRE(backward.run(
              relax, [&](std::uint32_t v, Ticks t) { late[v] = t; }, &kept, cross));
          std::string& w = wrong[static_cast<std::size_t>(group.process())];
          for (Rank r = trace.share->first; r < trace.share->last; ++r)
            for (EventIndex i = 0; i < trace.ranks[r].events.size(); ++i) {
              const std::uint32_t mine = part.vertex(r, i), theirs = whole.vertex(r, i);
              if (earliest[mine] != expected.earliest[theirs] || tail[mine] != expected.tail[theirs])
                w += " rank " + std::to_string(r) + " event " + std::to_string(i);
              const bool inside = !kept.kept(mine);
              const bool skipped_forward = inside && mine + 1 < part.graph.vertex_count && !kept.kept(mine + 1);
              const bool skipped_backward = inside && !kept.kept(mine - 1);
              if (early[mine] != (skipped_forward ? -1 : earliest[mine]) ||
                  late[mine] != (skipped_backward ? -1 : tail[mine]))
                w += " crossing: rank " + std::to_string(r) + " event " + std::to_string(i);
              skipped += skipped_forward;
            }
        });
        for (const std::string& w : wrong) CHECK(w.empty());
        if (expected_crossing) CHECK(skipped > 0);
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

namespace {

// The events (rank, event) an activity of `pag` joins, the start and hubs and ghosts left out.
using EventKey = std::pair<Rank, EventIndex>;
void add_events(const Pag& pag, const Trace& trace, const Activity& a, std::set<EventKey>& into) {
  for (const std::uint32_t v : {a.from, a.to})
    for (Rank r = 0; r < trace.rank_count(); ++r)
      if (pag.first_vertex[r] != kNone && v >= pag.first_vertex[r] &&
          v < pag.first_vertex[r] + trace.ranks[r].events.size())
        into.emplace(r, v - pag.first_vertex[r]);
}

// The critical-path method over the parts: the whole graph's length, and the critical path whole
// graph's walk finds (its events, its duration) in the pieces each part holds.
void require_cpm_over_parts_equals_whole(const fs::path& path, const PagOptions& options, std::vector<int> counts) {
  const Trace whole_trace = read_otf2(path);
  const Pag whole = build_pag(whole_trace, options);
  std::vector<std::uint32_t> whole_critical;
  const Cpm expected = critical_path_method(whole.graph, whole_critical);
  std::set<EventKey> expected_events;
  for (const std::uint32_t a : whole_critical) add_events(whole, whole_trace, whole.graph.activity(a), expected_events);
  for (const int processes : counts) {
    INFO(path.string() << " over " << processes << " processes");
    std::mutex mutex;
    std::set<EventKey> events;
    Ticks duration = 0;
    std::vector<Ticks> lengths;
    test::on_processes(processes, [&](ProcessGroup& group) {
      const Trace trace = read_share(path, group);
      const Pag part = build_pag(trace, options, group);
      std::vector<std::uint32_t> critical;
      const std::optional<Cpm> cpm = critical_path_method(part, critical, group);
      const std::lock_guard lock(mutex);
      lengths.push_back(cpm ? cpm->length : -1);
      for (const std::uint32_t a : critical) {
        add_events(part, trace, part.graph.activity(a), events);
        duration += part.graph.activity(a).duration;
      }
    });
    for (const Ticks length : lengths) CHECK(length == expected.length);
    CHECK(duration == expected.length);
    CHECK(events == expected_events);
  }
}

}  // namespace

TEST_CASE("the critical-path method over the parts of a spread PAG is the whole graph's",
          "[analysis][processes][pag]") {
  TempDir dir;
  write_otf2(test::every_dependency(), dir / "every");
  require_cpm_over_parts_equals_whole(dir / "every", PagOptions{}, {2, 3, 4, 7});
  require_cpm_over_parts_equals_whole(dir / "every", eager_limit_options(0), {2, 3, 4, 7});
  write_otf2(gen::generate_halo(test::spread_halo()), dir / "halo");
  require_cpm_over_parts_equals_whole(dir / "halo", PagOptions{}, {2, 7});
  write_otf2(gen::generate_wavefront(gen::WavefrontOptions{}), dir / "wavefront");
  require_cpm_over_parts_equals_whole(dir / "wavefront", PagOptions{}, {3});
  for (const char* name : test::kSpreadRealTraces)
    require_cpm_over_parts_equals_whole(test::real_trace(name), PagOptions{}, {2, 3});
}

TEST_CASE("a spread PAG's hubs go round the processes", "[analysis][processes][pag]") {
  // 12 ranks, an MPI_Allreduce of all of them per step: instance k's hub is on the process of its
  // member k mod 12, so that two processes of 6 ranks host about half the hubs each (22 instances:
  // 12 and 10), not all on the first member's process 0.
  TempDir dir;
  write_otf2(gen::generate_halo(test::spread_halo()), dir / "halo");
  const Trace whole_trace = read_otf2(dir / "halo");
  std::size_t instances = 0;
  for (const CollectiveInstance& inst : whole_trace.collectives) instances += inst.complete && inst.count >= 2;
  std::mutex mutex;
  std::vector<std::size_t> hubs(2, 0);
  test::on_processes(2, [&](ProcessGroup& group) {
    const Trace trace = read_share(dir / "halo", group);
    const Pag part = build_pag(trace, PagOptions{}, group);
    std::uint32_t lanes_end = 1;  // the ranks' vertices; after them the hubs and the ghosts
    for (Rank r = trace.share->first; r < trace.share->last; ++r)
      lanes_end = std::max<std::uint32_t>(lanes_end, part.first_vertex[r] + trace.ranks[r].events.size());
    std::set<std::uint32_t> ghosts;
    for (const PagGhost& g : part.ghosts) ghosts.insert(g.vertex);
    std::size_t mine = 0;
    for (std::uint32_t v = lanes_end; v < part.graph.vertex_count; ++v) mine += !ghosts.count(v);
    const std::lock_guard lock(mutex);
    hubs[static_cast<std::size_t>(group.process())] = mine;
  });
  INFO("hubs " << hubs[0] << " and " << hubs[1] << " of " << instances << " instances");
  CHECK(instances >= 20);
  CHECK(hubs[0] + hubs[1] == instances);
  for (const std::size_t h : hubs) CHECK(5 * h >= 2 * instances);
}
