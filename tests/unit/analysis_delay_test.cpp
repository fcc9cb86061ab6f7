// Delay analysis (paper 004 §IV): short- and long-term costs on hand-built traces with values
// derived in the comments (Fig. 2's situation, the negative-element heuristic, a barrier, a wait
// with nothing to blame), the cost accounting on generated traces, and the shape of Table I /
// Fig. 5 on the wavefront generator with slow vertical borders.
#include <catch2/catch.hpp>

#include <cmath>

#include "generators/generators.hpp"
#include "hand_trace.hpp"
#include "wisp/analysis/analyze.hpp"

using namespace wisp;
using test::HandTrace;

using test::callpath;
using test::metric_of;

namespace {


// Σ short + Σ long + unattributed = attributable waiting time, and every attributable wait is
// split completely into its direct and indirect part.
void check_accounting(const Analysis& a) {
  const DelayCosts& d = a.delays;
  CHECK(d.short_sum + d.long_sum + d.unattributed == Approx(d.total_wait).epsilon(1e-9).margin(1e-12));
  double waits = 0, split = 0, booked = 0;
  for (int k = 0; k < kDelayCategoryCount; ++k) {
    waits += a.waits.seconds[k].sum();
    split += d.direct_wait[k].sum() + d.indirect_wait[k].sum();
    booked += d.short_term[k].sum() + d.long_term[k].sum();
  }
  CHECK(waits == Approx(d.total_wait).epsilon(1e-12));
  CHECK(split == Approx(waits).epsilon(1e-9).margin(1e-12));
  CHECK(booked == Approx(d.short_sum + d.long_sum).epsilon(1e-9).margin(1e-12));
  CHECK(d.cycles_broken == 0);
}

}  // namespace

TEST_CASE("Paper 004 Fig. 2: A delays B in foo(), B's wait delays C", "[analysis][delay]") {
  // A: foo [0.1, 4.1], send to B at 4.1.   B: foo [0.1, 2.1], receive [2.1, 4.3] (Late Sender
  // 4.1 - 2.1 = 2.0), send to C at 4.3.    C: foo [0.1, 2.1], receive [2.1, 4.5] (Late Sender
  // 4.3 - 2.1 = 2.2). All synchronise in MPI_Init [0, 0.1] and MPI_Finalize [5, 5.1].
  // C's wait, delayer B since MPI_Init: B foo 2.0 + MPI_Recv 2.2 - its wait 2.0 = 0.2; C foo 2.0:
  // d = (foo 0, MPI_Recv 0.2), D = 0.2, Ws = 2.0 -> short-term 2.2·0.2/2.2 = 0.2 on B's
  // MPI_Recv; 2.0 propagates to B's wait. B's wait, delayer A: d = foo 4.0 - 2.0 = 2.0, Ws = 0 ->
  // short-term 2.0 and long-term 2.0 (carried from C) on A's foo.
  HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 0.1);
  }
  h.work(0, 0.1, 4.1, "foo");
  h.send(0, 4.1, 4.2, 1);
  h.work(1, 0.1, 2.1, "foo");
  h.recv(1, 2.1, 4.3, 0);
  h.send(1, 4.3, 4.4, 2);
  h.work(2, 0.1, 2.1, "foo");
  h.recv(2, 2.1, 4.5, 1);
  for (Rank r = 0; r < 3; ++r) {
    h.finalize(r, 5, 5.1);
    h.leave(r, 5.2, "main");
  }
  const Trace t = h.finish();
  const Analysis a = analyze(t);
  const MetricTable table = metric_table(a);
  CHECK(metric_of(t, table, "mpi_latesender", "main/MPI_Recv", 1) == Approx(2.0));
  CHECK(metric_of(t, table, "mpi_latesender", "main/MPI_Recv", 2) == Approx(2.2));
  CHECK(metric_of(t, table, "delay_latesender", "main/foo", 0) == Approx(2.0));
  CHECK(metric_of(t, table, "delay_latesender", "main/MPI_Recv", 1) == Approx(0.2));
  CHECK(metric_of(t, table, "delay_latesender_longterm", "main/foo", 0) == Approx(2.0));
  CHECK(metric_value(table, "delay_latesender") == Approx(2.2));
  CHECK(metric_value(table, "delay_latesender_longterm") == Approx(2.0));
  // Direct and indirect wait states (004 §IV-A): B's wait is direct, C's mostly indirect.
  CHECK(metric_of(t, table, "mpi_wait_direct_latesender", "main/MPI_Recv", 1) == Approx(2.0));
  CHECK(metric_of(t, table, "mpi_wait_indirect_latesender", "main/MPI_Recv", 1) == 0);
  CHECK(metric_of(t, table, "mpi_wait_indirect_latesender", "main/MPI_Recv", 2) == Approx(2.0));
  CHECK(metric_of(t, table, "mpi_wait_direct_latesender", "main/MPI_Recv", 2) == Approx(0.2));
  CHECK(a.delays.unattributed == 0);
  check_accounting(a);
}

TEST_CASE("Negative delay-vector elements are dropped and the rest scaled to the delay", "[analysis][delay]") {
  // A: foo 3, bar 1, then sends (enter 4). B: foo 1, bar 2, then receives (enter 3): Late
  // Sender 1. d = (foo +2, bar -1), D = 1: the whole wait goes to foo (2 scaled to 1), none to
  // bar; without the heuristic's scaling only half of it would be booked.
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) h.enter(r, 0, "main");
  h.work(0, 0, 3, "foo");
  h.work(0, 3, 4, "bar");
  h.send(0, 4, 4.1, 1);
  h.work(1, 0, 1, "foo");
  h.work(1, 1, 3, "bar");
  h.recv(1, 3, 4.2, 0);
  for (Rank r = 0; r < 2; ++r) h.leave(r, 5, "main");
  const Trace t = h.finish();
  const Analysis a = analyze(t);
  const MetricTable table = metric_table(a);
  CHECK(metric_of(t, table, "delay_latesender", "main/foo", 0) == Approx(1.0));
  CHECK(metric_of(t, table, "delay_latesender", "main/bar", 0) == 0);
  check_accounting(a);
}

TEST_CASE("Barrier delay: the last arriver's excess work, per waiting rank", "[analysis][delay]") {
  // Three ranks work 1, 2, 4 s after MPI_Init, then a barrier: ranks 0 and 1 wait 3 and 2 for
  // rank 2, whose work exceeds theirs by exactly that: short-term costs 5 on rank 2's work.
  // Then rank 0 sends to rank 1 at 7 which has waited in its receive since 5: that wait (2) is
  // direct, caused by rank 0's extra work 2 after the barrier.
  HandTrace h(3);
  const double work[3] = {1, 2, 4};
  for (Rank r = 0; r < 3; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 0.5);
    h.work(r, 0.5, 0.5 + work[r], "work");
    h.collective(r, 0.5 + work[r], 4.6, "MPI_Barrier", h.world());
  }
  h.work(0, 4.6, 7, "post");
  h.send(0, 7, 7.1, 1);
  h.work(1, 4.6, 5, "post");
  h.recv(1, 5, 7.2, 0);
  for (Rank r = 0; r < 3; ++r) h.leave(r, 8, "main");
  const Trace t = h.finish();
  const Analysis a = analyze(t);
  const MetricTable table = metric_table(a);
  CHECK(metric_value(table, "mpi_barrier_wait") == Approx(5.0));
  CHECK(metric_of(t, table, "delay_barrier", "main/work", 2) == Approx(5.0));
  CHECK(metric_value(table, "delay_barrier") == Approx(5.0));
  CHECK(metric_value(table, "delay_barrier_longterm") == 0);
  CHECK(metric_of(t, table, "delay_latesender", "main/post", 0) == Approx(2.0));
  check_accounting(a);
}

TEST_CASE("A wait with nothing to blame is unattributed and accounted", "[analysis][delay]") {
  // No common synchronisation before the message: the sender starts at 2 and sends at 3, the
  // receiver starts at 0 and receives from 2.5: Late Sender 0.5, but the sender spent only 1 s
  // since its start against the receiver's 2.5 s: D < 0 and no waiting on the sender.
  HandTrace h(2);
  h.enter(0, 2, "main");
  h.send(0, 3, 3.1, 1);
  h.leave(0, 4, "main");
  h.enter(1, 0, "main");
  h.recv(1, 2.5, 3.2, 0);
  h.leave(1, 4, "main");
  const Trace t = h.finish();
  const Analysis a = analyze(t);
  CHECK(a.delays.total_wait == Approx(0.5));
  CHECK(a.delays.unattributed == Approx(0.5));
  CHECK(a.delays.unattributed_waits == 1);
  CHECK(a.delays.short_sum == 0);
  check_accounting(a);
}

TEST_CASE("Delay accounting holds on generated traces", "[analysis][delay]") {
  gen::ImbalanceOptions im;
  im.mode = "dynamic";
  im.ranks = 8;
  im.iterations = 40;
  gen::HaloOptions halo;
  halo.dims = {4, 4};
  halo.steps = 20;
  halo.overload_ranks = {5};
  halo.overload = 0.5;
  halo.launch_jitter = 0.003;
  gen::PhasesOptions phases;
  phases.ranks = 8;
  phases.iterations = 5;
  gen::MpmdOptions mpmd;
  mpmd.mesh_work = 0.2;
  mpmd.launch_jitter = 0.01;
  for (const Trace& t : {gen::generate_imbalance(im), gen::generate_halo(halo),
                         gen::generate_phases(phases), gen::generate_mpmd(mpmd)}) {
    const Analysis a = analyze(t);
    CHECK(a.delays.total_wait > 0);
    check_accounting(a);
    CHECK(a.critical_path.stopped_early == 0);
  }
}

TEST_CASE("Wavefront with slow vertical borders: paper 004 Table I / Fig. 5 shape", "[analysis][delay]") {
  // Sweep3D-like 8x8 grid; the left and right border columns compute twice as long. Wait states
  // propagate horizontally; a delay on a vertical border first travels vertically and then
  // along every row, so the long-term costs dominate and their increase over the balanced run
  // originates on the border columns.
  auto run = [](double extra) {
    gen::WavefrontOptions o;
    o.px = o.py = 8;
    o.iterations = 4;
    o.extra = extra;
    for (Rank r = 0; r < 64; ++r)
      if (r % 8 == 0 || r % 8 == 7) o.extra_ranks.push_back(r);
    const Trace t = gen::generate_wavefront(o);
    Analysis a = analyze(t);
    MetricTable table = metric_table(a);
    return std::make_pair(std::move(table), std::move(a));
  };
  const auto [balanced_table, balanced] = run(0.0);
  const auto [table, slow] = run(1.0);
  CHECK(slow.delays.long_sum > 4 * slow.delays.short_sum);
  double border = 0, interior = 0, border_increase = 0, increase = 0;
  for (Rank r = 0; r < 64; ++r) {
    const double lt = metric_value(table, "delay_latesender_longterm", kAny, r);
    const double d = lt - metric_value(balanced_table, "delay_latesender_longterm", kAny, r);
    const bool on_border = r % 8 == 0 || r % 8 == 7;
    (on_border ? border : interior) += lt;
    if (on_border) border_increase += d;
    increase += d;
  }
  CHECK(border / 16 > 2.5 * interior / 48);
  CHECK(border_increase > 0.75 * increase);
  check_accounting(slow);
}

TEST_CASE("Late Broadcast and Early Reduce: delay costs and the critical path", "[analysis][delay][criticalpath]") {
  // After MPI_Init [0, 0.5], work takes 1, 3, 2 s on ranks 0, 1, 2; MPI_Bcast from rank 1 (begins
  // 3.5): ranks 0 and 2 wait 2 and 1, caused by rank 1's extra work (3 - 1, 3 - 2): delay_12n 3 on
  // rank 1's work. Then work2 takes 4, 1, 2 s; MPI_Reduce to rank 1, which begins at 4.6 and waits
  // for rank 0 (begins 7.6): Early Reduce 3, caused by rank 0's work2 (4 - 1): delay_n21 3.
  HandTrace h(3);
  const double work[3] = {1, 3, 2}, work2[3] = {4, 1, 2};
  for (Rank r = 0; r < 3; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 0.5);
    h.work(r, 0.5, 0.5 + work[r], "work");
    h.collective(r, 0.5 + work[r], 3.6, "MPI_Bcast", h.world(), 1);
    h.work(r, 3.6, 3.6 + work2[r], "work2");
    const double begin = 3.6 + work2[r];
    h.collective(r, begin, r == 1 ? 7.7 : begin + 0.1, "MPI_Reduce", h.world(), 1);
    h.finalize(r, r == 1 ? 8.2 : 8.0, 8.3);
    h.leave(r, 8.4, "main");
  }
  const Trace t = h.finish();
  const Analysis a = analyze(t);
  const MetricTable table = metric_table(a);
  CHECK(metric_value(table, "mpi_latebroadcast") == Approx(3.0));
  CHECK(metric_of(t, table, "delay_12n", "main/work", 1) == Approx(3.0));
  CHECK(metric_value(table, "delay_12n") == Approx(3.0));
  CHECK(metric_of(t, table, "mpi_earlyreduce", "main/MPI_Reduce", 1) == Approx(3.0));
  CHECK(metric_of(t, table, "delay_n21", "main/work2", 0) == Approx(3.0));
  CHECK(metric_value(table, "delay_n21") == Approx(3.0));
  check_accounting(a);
  // The path: from rank 1's MPI_Finalize (8.2) back through its Reduce after the wait (7.6), to
  // the latest sender rank 0: work2, its Bcast after the wait (3.5), then the root rank 1: work,
  // MPI_Init.
  const CriticalPath& cp = a.critical_path;
  CHECK(cp.end_rank == 1);
  CHECK(cp.length == Approx(8.2));
  CHECK(metric_of(t, table, "critical_path", "main/MPI_Init", 1) == Approx(0.5));
  CHECK(metric_of(t, table, "critical_path", "main/work", 1) == Approx(3.0));
  CHECK(metric_of(t, table, "critical_path", "main/MPI_Bcast", 0) == Approx(0.1));
  CHECK(metric_of(t, table, "critical_path", "main/work2", 0) == Approx(4.0));
  CHECK(metric_of(t, table, "critical_path", "main/MPI_Reduce", 1) == Approx(0.1));
  CHECK(metric_of(t, table, "critical_path", "main", 1) == Approx(0.5));
  CHECK(metric_value(table, "critical_path") == Approx(8.2));
}
