// Critical path method, near-critical paths and MBM on hand-made activity graphs with hand values,
// and a property test against brute-force path enumeration on random small multigraphs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "helpers.hpp"
#include "reference_cpm.hpp"
#include "wisp/analysis/mbm.hpp"
#include "wisp/analysis/pag_analysis.hpp"
#include "wisp/error.hpp"

using namespace wisp;

namespace {

constexpr CallpathId A = 0, B = 1, C = 2;

// The situation of paper 001 Fig. 4: the critical path s -a-> m -c-> t consists of A (6) and B (4);
// the second longest path s -d-> n -e-> t (C 5, B 4) shares B but not A, and a parallel (multigraph)
// edge b (C 2) runs beside a. Optimising A, the largest component, gains only 1; B gains 4.
//   vertices: s=0, m=1, n=2, t=3
//   a: s->m 6 A   b: s->m 2 C   c: m->t 4 B   d: s->n 5 C   e: n->t 4 B
ActivityGraph figure4() {
  ActivityGraph g;
  for (int i = 0; i < 4; ++i) g.add_vertex();
  g.add_activity({6, 0, 1, A, ActivityKind::Computation});  // a = 0
  g.add_activity({2, 0, 1, C, ActivityKind::Message});      // b = 1
  g.add_activity({4, 1, 3, B, ActivityKind::Computation});  // c = 2
  g.add_activity({5, 0, 2, C, ActivityKind::Computation});  // d = 3
  g.add_activity({4, 2, 3, B, ActivityKind::Computation});  // e = 4
  index_graph(g);
  return g;
}

}  // namespace

TEST_CASE("CPM on the Fig. 4 graph: ES, EF, LS, LF, total and free slack equal hand values") {
  const ActivityGraph g = figure4();
  const test::DenseCpm cpm = test::dense_cpm(g);
  CHECK(cpm.length == 10);
  CHECK(cpm.earliest == std::vector<Ticks>{0, 6, 5, 10});
  CHECK(cpm.latest == std::vector<Ticks>{0, 6, 6, 10});
  struct Hand {
    Ticks es, ef, ls, lf, ts, fs;
  };
  const Hand hand[] = {
      {0, 6, 0, 6, 0, 0},    // a: critical
      {0, 2, 4, 6, 4, 4},    // b: parallel edge beside a
      {6, 10, 6, 10, 0, 0},  // c: critical, ends at the leaf
      {0, 5, 1, 6, 1, 0},    // d: total slack 1 but no free slack (delaying d delays e)
      {5, 9, 6, 10, 1, 1},   // e
  };
  for (std::uint32_t i = 0; i < 5; ++i) {
    INFO("activity " << i);
    const test::ActivityTimes t = activity_times(g, cpm, i);
    CHECK(t.es == hand[i].es);
    CHECK(t.ef == hand[i].ef);
    CHECK(t.ls == hand[i].ls);
    CHECK(t.lf == hand[i].lf);
    CHECK(t.total_slack == hand[i].ts);
    CHECK(t.free_slack == hand[i].fs);
  }
  CHECK(critical_path(g, cpm) == std::vector<std::uint32_t>{0, 2});
  std::vector<std::uint32_t> critical;  // the analysis's sparse CPM: the same latest times and path
  const Cpm lean = critical_path_method(g, critical);
  CHECK(lean.length == 10);
  for (std::uint32_t v = 0; v < 4; ++v) CHECK(lean.latest_at(g, v) == cpm.latest[v]);
  CHECK(critical == std::vector<std::uint32_t>{0, 2});
}

TEST_CASE("near-critical paths and MBM on the Fig. 4 graph equal hand values") {
  const ActivityGraph g = figure4();
  const test::DenseCpm cpm = test::dense_cpm(g);
  NearCriticalQuery q;
  q.k = 5;
  const NearCriticalPaths p = near_critical_paths(g, cpm, q);
  // Exactly three paths: a c (10), d e (9), b c (6).
  REQUIRE(p.paths.size() == 3);
  CHECK_FALSE(p.more_available);
  CHECK(p.paths[0].duration == 10);
  CHECK(p.paths[1].duration == 9);
  CHECK(p.paths[2].duration == 6);
  CHECK(path_activities(g, p, 0) == std::vector<std::uint32_t>{0, 2});
  CHECK(path_activities(g, p, 1) == std::vector<std::uint32_t>{3, 4});
  CHECK(path_activities(g, p, 2) == std::vector<std::uint32_t>{1, 2});
  CHECK(p.paths[1].time_of(C) == 5);
  CHECK(p.paths[1].time_of(B) == 4);
  CHECK(p.paths[1].time_of(A) == 0);
  CHECK(p.last_nc_percent() == Approx(40.0));

  // MBM_k(i) = min_j (d(i)_j + d_cp - d_j):
  //   A: k=1: 6;  k=2: min(6, 0 + 1) = 1;  k=3: min(1, 0 + 4) = 1
  //   B: k=1: 4;  k=2: min(4, 4 + 1) = 4;  k=3: 4
  //   C: k=1: 0 (not on the critical path)
  CHECK(mbm_k(p, A, 1) == 6);
  CHECK(mbm_k(p, A, 2) == 1);
  CHECK(mbm_k(p, A, 3) == 1);
  CHECK(mbm_k(p, B, 1) == 4);
  CHECK(mbm_k(p, B, 3) == 4);
  CHECK(mbm_k(p, C, 3) == 0);
  // MBM_all(i) = d_cp - longest path with i zeroed:
  //   A zeroed: paths 4, 9, 6 -> 9, MBM_all = 1;  B zeroed: 6, 5, 2 -> 6, MBM_all = 4;  C: 10 -> 0
  CHECK(mbm_all(g, cpm, A) == 1);
  CHECK(mbm_all(g, cpm, B) == 4);
  CHECK(mbm_all(g, cpm, C) == 0);

  const auto rows = maximum_benefit(g, cpm, p);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].callpath == A);  // the largest critical-path component ...
  CHECK(rows[0].critical_path == 6);
  CHECK(rows[0].mbm_all == 1);  // ... is not the best target
  CHECK(rows[1].callpath == B);
  CHECK(rows[1].critical_path == 4);
  CHECK(rows[1].mbm_k == 4);
  CHECK(rows[1].mbm_all == 4);
  CHECK(rows[2].callpath == C);
  CHECK(rows[2].mbm_all == 0);
}

TEST_CASE("near-critical query modes: k, nc %, both") {
  const ActivityGraph g = figure4();
  const test::DenseCpm cpm = test::dense_cpm(g);
  NearCriticalQuery k1;
  k1.k = 1;
  auto p = near_critical_paths(g, cpm, k1);
  CHECK(p.paths.size() == 1);
  CHECK(p.more_available);
  CHECK(p.last_nc_percent() == 0);

  NearCriticalQuery nc;  // mode 2: all paths within 10 % (duration >= 9)
  nc.nc_percent = 10;
  p = near_critical_paths(g, cpm, nc);
  REQUIRE(p.paths.size() == 2);
  CHECK(p.paths[1].duration == 9);
  CHECK_FALSE(p.more_available);

  nc.nc_percent = 40;  // duration >= 6: all three
  CHECK(near_critical_paths(g, cpm, nc).paths.size() == 3);
  nc.nc_percent = 39;
  CHECK(near_critical_paths(g, cpm, nc).paths.size() == 2);

  NearCriticalQuery both;  // mode 3: up to 1 path within 50 %
  both.k = 1;
  both.nc_percent = 50;
  p = near_critical_paths(g, cpm, both);
  CHECK(p.paths.size() == 1);
  CHECK(p.more_available);

  NearCriticalQuery capped;  // nc only, capped by the limit: reported as more available
  capped.nc_percent = 100;
  capped.limit = 2;
  p = near_critical_paths(g, cpm, capped);
  CHECK(p.paths.size() == 2);
  CHECK(p.more_available);

  NearCriticalQuery bad;
  bad.k = 0;
  CHECK_THROWS_AS(near_critical_paths(g, cpm, bad), Error);
  bad.k.reset();
  bad.nc_percent = 120;
  CHECK_THROWS_AS(near_critical_paths(g, cpm, bad), Error);
}

namespace {

struct BrutePath {
  std::vector<std::uint32_t> activities;
  Ticks duration = 0;
};

// Every root-to-leaf path by depth-first search over all activity ids (no graph indices used).
void enumerate(const ActivityGraph& g, std::uint32_t v, BrutePath& cur, std::vector<BrutePath>& out) {
  bool leaf = true;
  for (std::uint32_t a = 0; a < g.activity_count(); ++a) {
    if (!g.exists(a) || g.activity(a).from != v) continue;
    leaf = false;
    cur.activities.push_back(a);
    cur.duration += g.activity(a).duration;
    enumerate(g, g.activity(a).to, cur, out);
    cur.duration -= g.activity(a).duration;
    cur.activities.pop_back();
  }
  if (leaf && !cur.activities.empty()) out.push_back(cur);
}

std::vector<BrutePath> all_paths(const ActivityGraph& g) {
  std::vector<bool> has_in(g.vertex_count, false);
  g.for_each_activity([&](std::uint32_t, const Activity& a) { has_in[a.to] = true; });
  std::vector<BrutePath> out;
  for (std::uint32_t v = 0; v < g.vertex_count; ++v) {
    if (has_in[v]) continue;
    BrutePath cur;
    enumerate(g, v, cur, out);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.duration > b.duration; });
  return out;
}

Ticks time_on(const ActivityGraph& g, const std::vector<std::uint32_t>& path, CallpathId cp) {
  Ticks t = 0;
  for (auto a : path)
    if (g.activity(a).callpath == cp) t += g.activity(a).duration;
  return t;
}

// A random multigraph; with `chains`, about one vertex in two also gets a chain activity v -> v + 1
// (local, added between the explicit ones). `explicit_chains` adds those as explicit activities
// instead, at the same moments: the same graph in the generic representation.
// Durations are multiples of `scale` (3e9: chains of 6e9 ticks and more are long, kLongChain).
ActivityGraph random_dag(std::mt19937& rng, bool chains = false, bool explicit_chains = false, Ticks scale = 1) {
  std::uniform_int_distribution<int> nv(2, 8);
  const int n = nv(rng);
  ActivityGraph g;
  for (int i = 0; i < n; ++i) g.add_vertex(static_cast<std::uint32_t>(rng() % 3));
  std::uniform_int_distribution<int> ne(n - 1, 2 * n + 3);
  const int m = ne(rng);
  std::vector<bool> chained(n, false);
  for (int i = 0; i < m; ++i) {
    std::uint32_t u = rng() % n, v = rng() % n;
    if (chains && rng() % 2 == 0 && u + 1 < static_cast<std::uint32_t>(n) && !chained[u]) {
      chained[u] = true;
      const Activity c{static_cast<Ticks>(rng() % 6) * scale, u, u + 1, static_cast<CallpathId>(rng() % 3),
                       rng() % 2 ? ActivityKind::Computation : ActivityKind::Mpi};
      if (explicit_chains)
        g.add_activity(c);
      else
        g.add_chain(u, c.duration, c.callpath, c.kind);
      continue;
    }
    if (u == v) continue;
    if (u > v) std::swap(u, v);
    const auto kind = static_cast<ActivityKind>(rng() % 4);
    g.add_activity({static_cast<Ticks>(rng() % 6) * scale, u, v, static_cast<CallpathId>(rng() % 3), kind});
    if (rng() % 4 == 0)  // a parallel edge: multigraph
      g.add_activity({static_cast<Ticks>(rng() % 6) * scale, u, v, static_cast<CallpathId>(rng() % 3), kind});
  }
  index_graph(g);
  return g;
}

}  // namespace

TEST_CASE("k longest paths, CPM slacks and MBM equal brute-force enumeration on random multigraphs") {
  std::mt19937 rng(20240611);
  int checked = 0;
  for (int seed = 0; seed < 800; ++seed) {
    const ActivityGraph g = random_dag(rng, seed % 2 == 1);  // odd seeds: with chain activities
    const auto brute = all_paths(g);
    if (brute.empty()) continue;
    ++checked;
    INFO("graph " << seed << " with " << g.vertex_count << " vertices, " << g.activities.size() << " explicit and "
                  << g.chain_count() << " chain activities, " << brute.size() << " paths");
    const test::DenseCpm cpm = test::dense_cpm(g);
    REQUIRE(cpm.length == brute.front().duration);
    // The analysis's sparse CPM: the same latest times and the same critical path.
    std::vector<std::uint32_t> critical;
    const Cpm lean = critical_path_method(g, critical);
    CHECK(lean.length == cpm.length);
    for (std::uint32_t v = 0; v < g.vertex_count; ++v) {
      CHECK(lean.latest_at(g, v) == cpm.latest[v]);
      CHECK(lean.tails.kept(v) == ChainTails::keeps(g, v));
    }
    CHECK(critical == critical_path(g, cpm));
    test::require_zero_slack_ways_agree(g, critical);
    // Every vertex offering its activities cheapest first (in a PAG: the synchronisation vertices)
    // finds the same paths in the same order, ties included, for several k and nc %.
    for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{5}, brute.size()}) {
      for (std::optional<double> nc : {std::optional<double>{}, std::optional<double>{20.0}}) {
        NearCriticalQuery listed, ordered;
        listed.k = ordered.k = k;
        listed.nc_percent = ordered.nc_percent = nc;
        listed.cost_ordered_from = std::numeric_limits<std::uint32_t>::max();
        ordered.cost_ordered_from = 1;
        const NearCriticalPaths a = near_critical_paths(g, lean, listed, critical),
                                b = near_critical_paths(g, lean, ordered, critical);
        REQUIRE(a.paths.size() == b.paths.size());
        CHECK(a.more_available == b.more_available);
        for (std::size_t j = 0; j < a.paths.size(); ++j) {
          CHECK(a.paths[j].duration == b.paths[j].duration);
          CHECK(path_activities(g, a, j) == path_activities(g, b, j));
        }
      }
    }

    // CPM: ES(v) = longest prefix to v; TS(a) = d_cp - longest path through a;
    // FS(a) = (ES of a's successors, d_cp at a leaf) - EF(a).
    std::vector<Ticks> es(g.vertex_count, 0);
    std::vector<Ticks> through(g.activity_count(), -1);
    for (const auto& p : brute) {
      Ticks prefix = 0;
      for (auto a : p.activities) {
        through[a] = std::max(through[a], p.duration);
        prefix += g.activity(a).duration;
        es[g.activity(a).to] = std::max(es[g.activity(a).to], prefix);
      }
    }
    g.for_each_activity([&](std::uint32_t a, const Activity& act) {
      const test::ActivityTimes t = activity_times(g, cpm, a);
      CHECK(t.es == es[act.from]);
      CHECK(t.total_slack == cpm.length - through[a]);
      bool leaf = true;
      g.for_each_activity([&](std::uint32_t, const Activity& x) { leaf = leaf && x.from != act.to; });
      CHECK(t.free_slack == (leaf ? cpm.length : es[act.to]) - (es[act.from] + act.duration));
    });

    // k longest paths for several k: same durations as the brute-force top k, valid and distinct.
    std::set<std::vector<std::uint32_t>> valid;
    for (const auto& p : brute) valid.insert(p.activities);
    for (std::size_t k :
         {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, brute.size(), brute.size() + 3}) {
      NearCriticalQuery q;
      q.k = k;
      const NearCriticalPaths r = near_critical_paths(g, cpm, q);
      const std::size_t expect = std::min(k, brute.size());
      REQUIRE(r.paths.size() == expect);
      CHECK(r.more_available == (k < brute.size()));
      std::set<std::vector<std::uint32_t>> seen;
      for (std::size_t j = 0; j < expect; ++j) {
        CHECK(r.paths[j].duration == brute[j].duration);
        const auto acts = path_activities(g, r, j);
        CHECK(valid.count(acts) == 1);
        CHECK(seen.insert(acts).second);
        Ticks sum = 0;
        for (auto a : acts) sum += g.activity(a).duration;
        CHECK(sum == r.paths[j].duration);
        for (CallpathId cp : {A, B, C}) CHECK(r.paths[j].time_of(cp) == time_on(g, acts, cp));
      }
      CHECK(path_activities(g, r, 0) == critical_path(g, cpm));
      // MBM_k over the returned paths; equal to brute force when the top-k set is unique.
      const bool unique = expect == brute.size() || brute[expect - 1].duration > brute[expect].duration;
      for (CallpathId cp : {A, B, C}) {
        Ticks brute_k = std::numeric_limits<Ticks>::max();
        for (std::size_t j = 0; j < expect; ++j)
          brute_k = std::min(brute_k, time_on(g, brute[j].activities, cp) + cpm.length - brute[j].duration);
        if (unique) CHECK(mbm_k(r, cp, k) == brute_k);
      }
    }

    // nc % mode: exactly the paths within nc % of d_cp.
    for (double nc : {0.0, 10.0, 35.0, 100.0}) {
      NearCriticalQuery q;
      q.nc_percent = nc;
      const NearCriticalPaths r = near_critical_paths(g, cpm, q);
      const auto within = std::count_if(brute.begin(), brute.end(), [&](const auto& p) {
        return static_cast<long double>(cpm.length - p.duration) <= cpm.length * nc / 100.0L;
      });
      CHECK(r.paths.size() == static_cast<std::size_t>(within));
      CHECK_FALSE(r.more_available);
    }

    // MBM_all(i) = min over all paths j of (d(i)_j + d_cp - d_j), and the invariants.
    NearCriticalQuery all;
    all.k = brute.size();
    const NearCriticalPaths r = near_critical_paths(g, cpm, all);
    // maximum_benefit's passes (lanes, gaps inside chains summed once) = the one-call-path sweep.
    for (const MbmRow& row : maximum_benefit(g, cpm, r))
      if (row.mbm_k > 0) CHECK(row.mbm_all == mbm_all(g, cpm, row.callpath));
    for (CallpathId cp : {A, B, C}) {
      Ticks expect = std::numeric_limits<Ticks>::max();
      for (const auto& p : brute) expect = std::min(expect, time_on(g, p.activities, cp) + cpm.length - p.duration);
      const Ticks m_all = mbm_all(g, cpm, cp);
      CHECK(m_all == expect);
      CHECK(m_all >= 0);
      CHECK(m_all <= r.paths[0].time_of(cp));
      Ticks previous = std::numeric_limits<Ticks>::max();
      for (std::size_t k = 1; k <= r.paths.size(); ++k) {
        const Ticks m = mbm_k(r, cp, k);
        CHECK(m <= previous);
        CHECK(m >= m_all);
        previous = m;
      }
      CHECK(previous == m_all);  // over all paths MBM_k reaches MBM_all
    }
  }
  CHECK(checked > 600);
}

TEST_CASE("chain activities give every result of the same activities stored explicitly, ties included") {
  // Small durations make many ties: which of equally long paths comes first, which tight activity
  // the critical path takes, depend on the order activities were added, which chains keep.
  // Every other graph has durations of up to 1.5e10 ticks: chains longer than 32 bits hold.
  int with_chains = 0, with_long = 0;
  for (std::uint32_t seed = 0; seed < 800; ++seed) {
    std::mt19937 rng_chain(seed / 2), rng_explicit(seed / 2);
    const Ticks scale = seed % 2 == 0 ? 1 : 3'000'000'000;
    const ActivityGraph g = random_dag(rng_chain, true, false, scale);
    const ActivityGraph e = random_dag(rng_explicit, true, true, scale);
    INFO("graph " << seed);
    if (!g.long_chains.empty()) ++with_long;
    for (std::uint32_t v = 0; v < g.vertex_count; ++v)
      if (g.has_chain(v)) CHECK(g.chain(v).duration % scale == 0);
    REQUIRE(e.activities.size() == g.activities.size() + g.chain_count());
    if (g.chain_count() > 0) ++with_chains;
    const test::DenseCpm cg = test::dense_cpm(g), ce = test::dense_cpm(e);
    CHECK(cg.earliest == ce.earliest);
    CHECK(cg.latest == ce.latest);
    CHECK(test::activity_values(g, critical_path(g, cg)) == test::activity_values(e, critical_path(e, ce)));
    NearCriticalQuery q;
    q.k = 12;
    const NearCriticalPaths pg = near_critical_paths(g, cg, q), pe = near_critical_paths(e, ce, q);
    REQUIRE(pg.paths.size() == pe.paths.size());
    for (std::size_t j = 0; j < pg.paths.size(); ++j) {
      CHECK(pg.paths[j].duration == pe.paths[j].duration);
      CHECK(test::activity_values(g, path_activities(g, pg, j)) == test::activity_values(e, path_activities(e, pe, j)));
    }
    const auto mg = maximum_benefit(g, cg, pg), me = maximum_benefit(e, ce, pe);
    REQUIRE(mg.size() == me.size());
    for (std::size_t i = 0; i < mg.size(); ++i) {
      CHECK(mg[i].callpath == me[i].callpath);
      CHECK(mg[i].mbm_k == me[i].mbm_k);
      CHECK(mg[i].mbm_all == me[i].mbm_all);
    }
  }
  CHECK(with_chains > 600);
  CHECK(with_long > 100);
}

TEST_CASE("graph variants: each pass sees the shared activities and its own variant's") {
  // 0 =chain 2=> 1 =chain 2=> 2, and 0 -> 2 lasting 7 in the second variant only, 0 -> 2 lasting 5
  // in the first only.
  ActivityGraph g;
  g.variants = kBothVariants;
  for (int i = 0; i < 3; ++i) g.add_vertex(0);
  g.add_chain(0, 2, A, ActivityKind::Computation);
  g.add_chain(1, 2, A, ActivityKind::Computation);
  Activity second{7, 0, 2, B, ActivityKind::Message}, first{5, 0, 2, C, ActivityKind::Message};
  second.variants = kSecondVariant;
  first.variants = kFirstVariant;
  g.add_activity(second);
  g.add_activity(first);
  CHECK(index_graph(g) == 0);
  CHECK(g.variants == kBothVariants);
  std::vector<Ticks> earliest;
  CHECK(test::longest_path(
            g, [](const Activity& a) { return a.duration; }, earliest) == 5);
  CHECK(test::longest_path(
            g, [](const Activity& a) { return a.duration; }, earliest, kSecondVariant) == 7);
  int first_count = 0, second_count = 0;
  g.for_each_activity([&](std::uint32_t, const Activity&) { ++first_count; });
  g.for_each_activity([&](std::uint32_t, const Activity&) { ++second_count; }, kSecondVariant);
  CHECK(first_count == 3);
  CHECK(second_count == 3);
  const test::DenseCpm cpm = test::dense_cpm(g);
  CHECK(cpm.length == 5);
  CHECK(critical_path(g, cpm) == std::vector<std::uint32_t>{1});  // the first variant's message
}

TEST_CASE("index_graph rejects bad vertex ids and breaks cycles, remote activities first") {
  ActivityGraph bad;
  bad.add_vertex();
  bad.add_activity({1, 0, 3, A, ActivityKind::Computation});
  CHECK_THROWS_AS(index_graph(bad), Error);

  // 0 -local-> 1 -message-> 0 : a cycle; the message is removed, the local activity kept.
  ActivityGraph g;
  g.add_vertex(0);
  g.add_vertex(0);
  g.add_activity({1, 0, 1, A, ActivityKind::Computation});
  g.add_activity({0, 1, 0, B, ActivityKind::Message});
  CHECK(index_graph(g) == 1);
  REQUIRE(g.activities.size() == 1);
  CHECK(g.activities[0].kind == ActivityKind::Computation);
  CHECK(test::dense_cpm(g).length == 1);

  // Two vertices of lane 0, the chain 0 => 1 and `back` (1 -> 0) closing a cycle.
  const auto chain_cycle = [](Ticks chain, ActivityKind kind, Activity back, Variant variants = kFirstVariant) {
    ActivityGraph x;
    x.variants = variants;
    x.add_vertex(0);
    x.add_vertex(0);
    x.add_chain(0, chain, A, kind);
    x.add_activity(back);
    return x;
  };
  // The same with the local activity a chain: the message goes, the chain stays.
  ActivityGraph c = chain_cycle(1, ActivityKind::Computation, {0, 1, 0, B, ActivityKind::Message});
  CHECK(index_graph(c) == 1);
  CHECK(c.activities.empty());
  CHECK(c.chain_count() == 1);
  CHECK(test::dense_cpm(c).length == 1);

  // Only local activities close the cycle: the first blocked vertex's incoming one from a blocked
  // vertex (the explicit local) is removed, the chain stays.
  ActivityGraph l = chain_cycle(2, ActivityKind::Mpi, {5, 1, 0, B, ActivityKind::Computation});
  CHECK(index_graph(l) == 1);
  CHECK(l.activities.empty());
  CHECK(test::dense_cpm(l).length == 2);

  // A cycle only the second variant's own activities close drops that variant; the first stays.
  Activity back{0, 1, 0, B, ActivityKind::Rendezvous};
  back.variants = kSecondVariant;
  ActivityGraph v = chain_cycle(3, ActivityKind::Computation, back, kBothVariants);
  CHECK(index_graph(v) == 0);
  CHECK(v.variants == kFirstVariant);
  CHECK(v.activities.empty());
  CHECK(test::dense_cpm(v).length == 3);

  // A chain activity must join existing vertices.
  ActivityGraph out;
  out.add_vertex(0);
  CHECK_THROWS_AS(out.add_chain(0, 1, A, ActivityKind::Computation), Error);
}

TEST_CASE("successor table: chains as bits, other activities by counting bits, leaves none") {
  // 200 vertices (several 64-bit words); explicit activity ids below 1000, chain of v = 1000 + v.
  Successors s(1000);
  std::vector<std::uint32_t> expect;
  for (std::uint32_t v = 0; v < 200; ++v) {
    const std::uint32_t a = v % 7 == 0 ? kNone : v % 5 == 0 ? 3 * v : 1000 + v;
    s.push(v, a);
    expect.push_back(a);
  }
  REQUIRE(s.size() == 200);
  for (std::uint32_t v = 0; v < 200; ++v) CHECK(s[v] == expect[v]);
  CHECK_THROWS_AS(s.push(5, 1005), Error);  // out of order
  CHECK(s.memory_bytes() < 200 * 4);
  // Built in three parts on word borders (as on three threads) and appended: the same table.
  Successors first(1000), second(1000, 64), third(1000, 192);
  for (std::uint32_t v = 0; v < 200; ++v) (v < 64 ? first : v < 192 ? second : third).push(v, expect[v]);
  first.append(std::move(second));
  first.append(std::move(third));
  REQUIRE(first.size() == 200);
  for (std::uint32_t v = 0; v < 200; ++v) CHECK(first[v] == expect[v]);
  CHECK_THROWS_AS(Successors(1000, 10), Error);  // not on a word border
  Successors gap(1000, 128);
  CHECK_THROWS_AS(first.append(std::move(gap)), Error);  // does not follow
  // Runs of chain successors set at once (across word borders, one vertex long, up to a word's
  // end, a whole word): the same table as vertex by vertex.
  Successors runs(1000), one(1000);
  std::uint32_t v = 0;
  for (std::uint32_t len : {3u, 1u, 60u, 64u, 70u, 2u}) {
    runs.push(v, 5 * v);
    one.push(v, 5 * v);
    ++v;
    runs.push_chains(v, v + len);
    for (std::uint32_t u = v; u < v + len; ++u) one.push(u, 1000 + u);
    v += len;
  }
  REQUIRE(runs.size() == one.size());
  for (std::uint32_t u = 0; u < v; ++u) CHECK(runs[u] == one[u]);
  CHECK_THROWS_AS(runs.push_chains(v + 1, v + 5), Error);  // out of order
}

TEST_CASE("MBM with its passes on several threads: the rows of one thread") {
  // Three lanes of 40 vertices, chains and messages over 13 call paths: at least three passes.
  std::mt19937 rng(99);
  const std::uint32_t lanes = 3, per = 40;
  ActivityGraph g;
  for (std::uint32_t lane = 0; lane < lanes; ++lane) g.add_vertices(per, lane);
  for (std::uint32_t lane = 0; lane < lanes; ++lane)
    for (std::uint32_t i = 0; i + 1 < per; ++i)
      g.add_chain(lane * per + i, static_cast<Ticks>(rng() % 9), static_cast<CallpathId>(rng() % 13),
                  ActivityKind::Computation);
  for (int m = 0; m < 40; ++m) {
    const std::uint32_t a = rng() % lanes, b = rng() % lanes, i = rng() % per, j = rng() % per;
    if (a == b || i >= j) continue;  // later on another lane: no cycle
    g.add_activity({static_cast<Ticks>(rng() % 5), a * per + i, b * per + j, static_cast<CallpathId>(rng() % 13),
                    ActivityKind::Message});
  }
  index_graph(g);
  const test::DenseCpm cpm = test::dense_cpm(g);
  NearCriticalQuery q;
  q.k = 200;
  const NearCriticalPaths paths = near_critical_paths(g, cpm, q);
  const std::vector<MbmRow> one = maximum_benefit(g, cpm, paths), three = maximum_benefit(g, cpm, paths, 3);
  REQUIRE(one.size() > 8);
  REQUIRE(three.size() == one.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    CHECK(three[i].callpath == one[i].callpath);
    CHECK(three[i].mbm_k == one[i].mbm_k);
    CHECK(three[i].mbm_all == one[i].mbm_all);
    CHECK(one[i].mbm_all == mbm_all(g, cpm, one[i].callpath));  // one call path per pass
  }
}

TEST_CASE("chain durations: 32 bits, the longer ones aside, either kind overwritten") {
  ActivityGraph g;
  g.add_vertices(5, 0);
  const Ticks huge = Ticks{1} << 40;
  g.add_chain(3, huge, 1, ActivityKind::Computation);
  g.add_chain(0, 5, 1, ActivityKind::Computation);
  g.add_chain(1, ActivityGraph::kLongChain, 2, ActivityKind::Mpi);  // the sentinel itself is long
  g.add_chain(2, huge + 1, 1, ActivityKind::Computation);           // added out of vertex order
  CHECK(g.long_chains.size() == 3);
  CHECK(g.chain(0).duration == 5);
  CHECK(g.chain(1).duration == Ticks{ActivityGraph::kLongChain});
  CHECK(g.chain(2).duration == huge + 1);
  CHECK(g.chain(3).duration == huge);
  g.add_chain(3, 7, 1, ActivityKind::Computation);         // long -> short
  g.add_chain(0, huge + 2, 1, ActivityKind::Computation);  // short -> long
  CHECK(g.long_chains.size() == 3);
  CHECK(g.chain(3).duration == 7);
  CHECK(g.chain(0).duration == huge + 2);
  index_graph(g);
  CHECK(test::dense_cpm(g).length == (huge + 2) + ActivityGraph::kLongChain + (huge + 1) + 7);
}

TEST_CASE("chain call paths: 16 bits, the wider ones aside, the two sentinels kept") {
  ActivityGraph g;
  g.add_vertices(7, 0);
  const std::vector<CallpathId> ids{70000, 0, kNone, kLaunchCallpath, ActivityGraph::kWideCallpath, 0xfffc};
  for (std::uint32_t v = 0; v < ids.size(); ++v) g.add_chain(v, 1, ids[v], ActivityKind::Computation);
  CHECK(g.wide_callpaths.size() == 2);  // 70000 and 0xfffd
  for (std::uint32_t v = 0; v < ids.size(); ++v) CHECK(g.chain(v).callpath == ids[v]);
  g.add_chain(0, 1, 5, ActivityKind::Computation);         // wide -> narrow
  g.add_chain(1, 1, 1u << 30, ActivityKind::Computation);  // narrow -> wide
  CHECK(g.wide_callpaths.size() == 2);
  CHECK(g.chain(0).callpath == 5);
  CHECK(g.chain(1).callpath == 1u << 30);
  index_graph(g);
  CHECK(g.chain(4).callpath == ActivityGraph::kWideCallpath);
}

// Distinct paths on Fig. 4 with detours shorter than 2 counted as variants: d e leaves the critical
// path a c at s with slack 1 (a variant of it, counted), b c with slack 4 (another path).
TEST_CASE("distinct near-critical paths: detours below min_detour are variants of the path they leave") {
  const ActivityGraph g = figure4();
  const test::DenseCpm cpm = test::dense_cpm(g);
  NearCriticalQuery q;
  q.k = 5;
  q.min_detour = 2;
  const NearCriticalPaths p = near_critical_paths(g, cpm, q);
  REQUIRE(p.paths.size() == 2);
  CHECK(p.paths[0].duration == 10);
  CHECK(p.paths[0].variants == 1);
  CHECK(p.paths[1].duration == 6);
  CHECK(p.paths[1].variants == 0);
  CHECK(path_activities(g, p, 1) == std::vector<std::uint32_t>{1, 2});
  // The distinct query of a run: 0.1 % of its critical path, at least one tick.
  CHECK(distinct_query(q, 10).min_detour == 1);
  CHECK(distinct_query(q, 2000000).min_detour == 2000);
}
