// Critical path, critical-path imbalance ι and performance-impact indicators (paper 000):
// a hand-built trace whose path and indicators are derived in the comments; the synthetic
// load-imbalance benchmark of §IV-A (Fig. 6 reproduced as a printed table); the MPMD case of
// §IV-D with a too-slow mesh or particle partition (the shape of Fig. 9).
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>

#include "hand_trace.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;
using test::two_rank_trace;

using test::callpath;
using test::metric_of;

TEST_CASE("Critical path of a two-rank trace, by hand", "[analysis][criticalpath]") {
  const Trace t = two_rank_trace();
  const WaitPathAnalysis a = analyze_wait_paths(t);
  const CriticalPath& cp = a.critical_path;
  // Rank 1 enters MPI_Finalize last (8); backwards: C, the end of MPI_Recv after its wait (from
  // 2 + 3 = 5), then rank 0 from the Enter of its MPI_Send (5): A, MPI_Init.
  CHECK(cp.end_rank == 1);
  REQUIRE(cp.segments.size() == 4);
  const struct {
    Rank rank;
    const char* cp;
    double start, end;
  } expected[] = {{0, "main/MPI_Init", 0, 1}, {0, "main/A", 1, 5}, {1, "main/MPI_Recv", 5, 5.2}, {1, "main/C", 5.2, 8}};
  for (int i = 0; i < 4; ++i) {
    CHECK(cp.segments[i].rank == expected[i].rank);
    CHECK(cp.segments[i].callpath == callpath(t, expected[i].cp));
    CHECK(cp.segments[i].start == Approx(expected[i].start));
    CHECK(cp.segments[i].end == Approx(expected[i].end));
  }
  CHECK(cp.length == Approx(8.0));

  const MetricTable table = metric_table(a);
  CHECK(metric_of(t, table, "critical_path", "main/A", 0) == Approx(4.0));
  CHECK(metric_of(t, table, "critical_path", "main/MPI_Recv", 1) == Approx(0.2));
  CHECK(metric_of(t, table, "critical_path", "main/B") == 0);
  // ι = max(d_cp - avg of the non-waiting time, 0): A 4 - (4 + 0)/2, C 2.8 - 2.8/2, MPI_Recv
  // 0.2 - (3.2 - 3)/2, MPI_Init 1 - 2/2 = 0.
  CHECK(metric_of(t, table, "critical_path_imbalance", "main/A", 0) == Approx(2.0));
  CHECK(metric_of(t, table, "critical_path_imbalance", "main/C", 1) == Approx(1.4));
  CHECK(metric_of(t, table, "critical_path_imbalance", "main/MPI_Recv", 1) == Approx(0.1));
  CHECK(metric_of(t, table, "critical_path_imbalance", "main/MPI_Init") == 0);
  // Headroom: rank 0 non-waiting time main 1.0 + Init 1 + A 4 + Send 0.1 + Finalize 0.5 = 6.6
  // (its 2 s at MPI_Finalize are waiting), h0 = 8 - 6.6 = 1.4; rank 1: 0.1 + 1 + 1 + 0.2 + 2.8 +
  // 0.5 = 5.6, h1 = 2.4. Excess on rank 0: MPI_Recv 0.2, C 2.8 (α = 1.4/3); on rank 1: A 4
  // (α = 0.6). Rank 0 executes neither C nor MPI_Recv, rank 1 not A (derived partitions {0},
  // {1}): all costs are inter-partition, mapped onto the ranks on the path.
  CHECK(a.imbalance.headroom[0] == Approx(1.4));
  CHECK(a.imbalance.headroom[1] == Approx(2.4));
  CHECK(metric_of(t, table, "inter_partition_imbalance", "main/A", 0) == Approx(2.4));
  CHECK(metric_of(t, table, "inter_partition_imbalance", "main/C", 1) == Approx(1.4 / 3 * 2.8));
  CHECK(metric_of(t, table, "inter_partition_imbalance", "main/MPI_Recv", 1) == Approx(1.4 / 3 * 0.2));
  CHECK(metric_value(table, "intra_partition_imbalance") == 0);
  CHECK(metric_value(table, "critical_imbalance_impact") == Approx(1.4 + 2.4));
  CHECK(metric_of(t, table, "performance_impact", "main/A", 0) == Approx(4.0 + 2.4));
  CHECK(metric_of(t, table, "performance_impact", "main/MPI_Finalize", 0) == Approx(0.5));

  SECTION("one user-given partition makes every cost intra-partition") {
    WaitPathOptions o;
    o.partitions = parse_partitions("all: 0-1\n", "parts.txt", 2);
    const WaitPathAnalysis b = analyze_wait_paths(t, o);
    const MetricTable tb = metric_table(b);
    CHECK(metric_value(tb, "inter_partition_imbalance") == 0);
    CHECK(metric_of(t, tb, "intra_partition_imbalance", "main/A", 0) == Approx(2.4));
    CHECK(metric_value(tb, "critical_imbalance_impact") == Approx(3.8));
  }
}

TEST_CASE("Synthetic imbalance benchmark: paper 000 Fig. 6", "[analysis][criticalpath]") {
  std::cout << "\nPaper 000 Fig. 6 (32 ranks, 320 iterations, +25 %): imbalance of work() in % of "
               "its average time\n  mode      critical-path ι   profile max-avg   configured\n";
  for (const char* mode : {"balanced", "static", "dynamic", "mixed"}) {
    gen::ImbalanceOptions o;
    o.mode = mode;
    const Trace t = gen::generate_imbalance(o);
    const WaitPathAnalysis a = analyze_wait_paths(t);
    const MetricTable table = metric_table(a);
    const CallpathId work = callpath(t, "main/work");
    double max = 0, sum = 0;
    for (Rank r = 0; r < t.rank_count(); ++r) {
      const double x = a.profile.time.at(slot_of(work), r);
      max = std::max(max, x);
      sum += x;
    }
    const double avg = sum / t.rank_count();
    const double iota = metric_value(table, "critical_path_imbalance", work);
    const double profile = max - avg;
    // The configured extra runtime: percent of the balanced runtime (generators.hpp).
    const double extra = std::string(mode) == "balanced" ? 0.0 : o.percent / 100.0 * gen::imbalance_balanced_runtime(o);
    std::printf("  %-8s  %12.1f %%    %12.1f %%    %8.1f %%\n", mode, 100 * iota / avg, 100 * profile / avg,
                100 * extra / avg);
    // The critical path runs from MPI_Init to the last MPI_Finalize Enter.
    CHECK(a.critical_path.length == Approx(a.waits.finalize.latest_enter - 0.0).epsilon(1e-9));
    if (extra == 0) {
      CHECK(iota == Approx(0).margin(1e-6));
      CHECK(profile == Approx(0).margin(1e-6));
      continue;
    }
    CHECK(iota == Approx(extra).epsilon(0.05));
    if (std::string(mode) == "static") CHECK(profile == Approx(extra).epsilon(0.05));
    if (std::string(mode) == "dynamic") CHECK(profile < 0.01 * extra);
    if (std::string(mode) == "mixed") {
      CHECK(profile > 0.4 * extra);
      CHECK(profile < 0.6 * extra);
    }
  }
}

TEST_CASE("MPMD partitions: inter-partition costs land on the slow partition", "[analysis][criticalpath]") {
  // Every step the fast partition idles for the difference of the per-rank work of the two
  // partitions: with 8 ranks each, 50 steps, the costs are 8 · 50 · (slow - fast) per-step work.
  for (const bool mesh_slow : {true, false}) {
    gen::MpmdOptions o;
    o.mesh_work = mesh_slow ? 0.2 : 0.08;
    o.particle_work = mesh_slow ? 0.08 : 0.2;
    const Trace t = gen::generate_mpmd(o);
    const WaitPathAnalysis a = analyze_wait_paths(t);
    const MetricTable table = metric_table(a);
    REQUIRE(a.partitions.names.size() == 2);
    const double step_slow = 0.2 / 8, step_fast = 0.08 / 8;
    const double expected = 8 * o.steps * (step_slow - step_fast);
    const std::string slow = mesh_slow ? "main/mesh_solve" : "main/particle_push";
    const std::string fast = mesh_slow ? "main/particle_push" : "main/mesh_solve";
    const double inter = metric_value(table, "inter_partition_imbalance");
    const double intra = metric_value(table, "intra_partition_imbalance");
    CHECK(metric_of(t, table, "inter_partition_imbalance", slow) == Approx(expected).epsilon(0.02));
    CHECK(metric_of(t, table, "inter_partition_imbalance", slow) > 0.95 * inter);
    CHECK(intra < 0.05 * inter);
    CHECK(metric_of(t, table, "inter_partition_imbalance", fast) == 0);
    CHECK(metric_of(t, table, "critical_path", slow) == Approx(o.steps * step_slow).epsilon(0.01));
    // The slow function's costs sit on the ranks of its partition only.
    for (Rank r = 0; r < t.rank_count(); ++r) {
      const bool in_slow = mesh_slow ? r >= 8 : r < 8;
      if (!in_slow) CHECK(metric_of(t, table, "inter_partition_imbalance", slow, r) == 0);
    }
  }
}
