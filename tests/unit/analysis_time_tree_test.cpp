// Scalasca's time tree (scout.spec) and MPI message statistics (Message.pattern) on a hand-made
// trace whose values are derived by hand in the comments, and the sums of the catalogue (each
// parent the sum of its children) on a generated trace.
#include <catch2/catch.hpp>

#include "hand_trace.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;
using test::HandTrace;
using test::metric_of;

namespace {

// Two ranks in main [0, 10], each with MPI_Init [0, 1] and MPI_Finalize [9, 10].
// rank 0: foo [1, 3], MPI_Comm_rank [3, 3.5], MPI_Send 8 B [3.5, 4], MPI_Send 0 B [4, 4.5],
//         MPI_Barrier [5, 6], MPI_Allreduce 16 B [6, 7], MPI_Bcast 100 B as root [7, 7.5].
// rank 1: MPI_Recv 8 B [1, 4.2], MPI_Recv 0 B [4.2, 4.6], bar [4.6, 5.5], MPI_Barrier [5.5, 6],
//         MPI_Allreduce [6, 7], MPI_Bcast [7, 8].
Trace hand_made() {
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 1);
  }
  h.work(0, 1, 3, "foo");
  h.enter(0, 3, "MPI_Comm_rank");
  h.leave(0, 3.5, "MPI_Comm_rank");
  h.send(0, 3.5, 4, 1, 0, 8);
  h.send(0, 4, 4.5, 1, 1, 0);
  h.recv(1, 1, 4.2, 0, 0, 8);
  h.recv(1, 4.2, 4.6, 0, 1, 0);
  h.work(1, 4.6, 5.5, "bar");
  h.collective(0, 5, 6, "MPI_Barrier", 0);
  h.collective(1, 5.5, 6, "MPI_Barrier", 0);
  for (Rank r = 0; r < 2; ++r) h.collective(r, 6, 7, "MPI_Allreduce", 0, kNone, 16);
  h.collective(0, 7, 7.5, "MPI_Bcast", 0, 0, 100);
  h.collective(1, 7, 8, "MPI_Bcast", 0, 0, 100);
  for (Rank r = 0; r < 2; ++r) {
    h.finalize(r, 9, 10);
    h.leave(r, 10, "main");
  }
  return h.finish();
}

}  // namespace

TEST_CASE("time tree: each call path's time by what its region is, as scout.spec splits it", "[analysis][metrics]") {
  const Trace t = hand_made();
  const MetricTable table = metric_table(analyze_wait_paths(t));
  const auto total = [&](const char* metric, Rank r) { return metric_value(table, metric, kAny, r); };
  // rank 0: main's own time is [4.5, 5] and [7.5, 9] = 2.0; foo 2.0. MPI: Init + Finalize 2.0,
  // Comm_rank 0.5, the sends 1.0, Barrier 1.0, Allreduce 1.0, Bcast 0.5 = 6.0.
  CHECK(total("execution", 0) == Approx(10.0));
  CHECK(total("comp", 0) == Approx(4.0));
  CHECK(total("mpi", 0) == Approx(6.0));
  CHECK(total("mpi_init_exit", 0) == Approx(2.0));
  CHECK(total("mpi_mgmt_comm", 0) == Approx(0.5));
  CHECK(total("mpi_management", 0) == Approx(2.5));
  CHECK(total("mpi_sync_collective", 0) == Approx(1.0));
  CHECK(total("mpi_synchronization", 0) == Approx(1.0));
  CHECK(total("mpi_point2point", 0) == Approx(1.0));
  CHECK(total("mpi_collective", 0) == Approx(1.5));
  CHECK(total("mpi_communication", 0) == Approx(2.5));
  // rank 1: main's own time [8, 9] = 1.0, bar 0.9; MPI: Init + Finalize 2.0, the receives 3.6,
  // Barrier 0.5, Allreduce 1.0, Bcast 1.0 = 8.1.
  CHECK(total("comp", 1) == Approx(1.9));
  CHECK(total("mpi", 1) == Approx(8.1));
  CHECK(total("mpi_point2point", 1) == Approx(3.6));
  CHECK(total("mpi_collective", 1) == Approx(2.0));
  CHECK(total("mpi_sync_collective", 1) == Approx(0.5));
  CHECK(metric_of(t, table, "mpi_point2point", "main/MPI_Recv", 1) == Approx(3.6));
  CHECK(metric_of(t, table, "comp", "main/bar", 1) == Approx(0.9));
  CHECK(metric_of(t, table, "comp", "main", 1) == Approx(1.0));
  // Nothing of the measurement system, no OpenMP.
  CHECK(total("overhead", 0) == 0);
  CHECK(total("omp_time", 0) == 0);
}

TEST_CASE("load imbalance heuristic: computation against the mean over ranks, bypassed and singular call paths",
          "[analysis][metrics]") {
  const Trace t = hand_made();
  const MetricTable table = metric_table(analyze_wait_paths(t));
  const auto at = [&](const char* metric, const char* cp, Rank r) { return metric_of(t, table, metric, cp, r); };
  // main computes 2.0 on rank 0 and 1.0 on rank 1: mean 1.5, each 0.5 off it.
  CHECK(at("imbalance_above", "main", 0) == Approx(0.5));
  CHECK(at("imbalance_below", "main", 1) == Approx(0.5));
  CHECK(at("imbalance", "main", 1) == Approx(0.5));
  // foo: 2.0 on rank 0 only, mean 1.0: rank 0 is 1.0 above, a single participant 1.0 · (2 - 1);
  // rank 1 is 1.0 below, bypasses it, and the bypass is a singularity.
  CHECK(at("imbalance_above", "main/foo", 0) == Approx(1.0));
  CHECK(at("imbalance_above_single", "main/foo", 0) == Approx(1.0));
  CHECK(at("imbalance_below", "main/foo", 1) == Approx(1.0));
  CHECK(at("imbalance_below_bypass", "main/foo", 1) == Approx(1.0));
  CHECK(at("imbalance_below_singularity", "main/foo", 1) == Approx(1.0));
  // bar: 0.9 on rank 1 only, mean 0.45.
  CHECK(at("imbalance_above_single", "main/bar", 1) == Approx(0.45));
  CHECK(at("imbalance_below_bypass", "main/bar", 0) == Approx(0.45));
  // MPI calls do not compute: no imbalance there.
  CHECK(at("imbalance", "main/MPI_Recv", 1) == 0);
}

TEST_CASE("message statistics: syncs, comms and bytes where scout counts them", "[analysis][metrics]") {
  const Trace t = hand_made();
  const MetricTable table = metric_table(analyze_wait_paths(t));
  const auto total = [&](const char* metric, Rank r) { return metric_value(table, metric, kAny, r); };
  // The 8-byte message is a communication, the empty one a synchronisation, both at main/MPI_Send
  // and main/MPI_Recv. MPI_Init's and MPI_Finalize's handle records are no collectives.
  CHECK(metric_of(t, table, "comms_send", "main/MPI_Send", 0) == 1);
  CHECK(metric_of(t, table, "syncs_send", "main/MPI_Send", 0) == 1);
  CHECK(metric_of(t, table, "comms_recv", "main/MPI_Recv", 1) == 1);
  CHECK(metric_of(t, table, "syncs_recv", "main/MPI_Recv", 1) == 1);
  CHECK(total("bytes_sent", 0) == 8);
  CHECK(total("bytes_rcvd", 1) == 8);
  // The barrier synchronises (no bytes). Score-P records an N x N operation of b bytes as n·b sent
  // and received (2 ranks: 32 of 16), a broadcast's root as n·b sent and b received (200, 100), the
  // other ranks as b received: the root exchanges, rank 1 is a destination.
  CHECK(metric_of(t, table, "syncs_coll", "main/MPI_Barrier", 0) == 1);
  CHECK(total("syncs_coll", 1) == 1);
  CHECK(total("comms_cxch", 0) == 2);
  CHECK(total("comms_cxch", 1) == 1);
  CHECK(total("comms_cdst", 1) == 1);
  CHECK(total("comms_csrc", 0) == 0);
  CHECK(total("bytes_cout", 0) == 32 + 200);
  CHECK(total("bytes_cin", 0) == 32 + 100);
  CHECK(total("bytes_cout", 1) == 32);
  CHECK(total("bytes_cin", 1) == 32 + 100);
  // The sums: syncs = 1 + 1 per rank; comms 1 + 2 and 1 + 1 + 1; bytes 8 + 232 + 132, 8 + 32 + 132.
  CHECK(total("syncs", 0) == 2);
  CHECK(total("syncs", 1) == 2);
  CHECK(total("comms", 0) == 3);
  CHECK(total("comms", 1) == 3);
  CHECK(total("bytes", 0) == 372);
  CHECK(total("bytes", 1) == 172);
}

TEST_CASE("metric sums: every sum of the catalogue equals its children's, call path by call path",
          "[analysis][metrics]") {
  gen::HaloOptions o;
  o.dims = {3, 2};
  o.steps = 4;
  const Trace t = gen::generate_halo(o);
  const MetricTable table = metric_table(analyze_wait_paths(t));
  std::size_t checked = 0;
  for (const MetricInfo* sum : sums_deepest_first())
    for (CallpathId c = 0; c < t.defs.callpaths.size(); ++c)
      for (Rank r = 0; r < t.rank_count(); ++r) {
        double children = 0;
        for (const MetricInfo& m : metric_catalogue())
          if (m.parent == sum->name) children += metric_value(table, m.name, c, r);
        INFO(sum->name << " at " << t.defs.callpath_name(c) << " rank " << r);
        CHECK(metric_value(table, sum->name, c, r) == Approx(children).margin(1e-12));
        checked += children != 0;
      }
  CHECK(checked > 0);
}
