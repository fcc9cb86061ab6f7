// Delay analysis (paper 004 §IV): short- and long-term costs on hand-built traces with values
// derived in the comments (Fig. 2's situation, the negative-element heuristic, a barrier, a wait
// with nothing to blame), the cost accounting on generated traces, and the shape of Table I /
// Fig. 5 on the wavefront generator with slow vertical borders.
#include <catch2/catch.hpp>

#include <cmath>

#include "hand_trace.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;
using test::HandTrace;

using test::callpath;
using test::metric_of;

namespace {

// Σ short + Σ long + unattributed = attributable waiting time, and every attributable wait is
// split completely into its direct and indirect part.
void check_accounting(const WaitPathAnalysis& a) {
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
  const WaitPathAnalysis a = analyze_wait_paths(t);
  const MetricTable table = metric_table(a);
  CHECK(metric_of(t, table, "mpi_latesender", "main/MPI_Recv", 1) == Approx(2.0));
  CHECK(metric_of(t, table, "mpi_latesender", "main/MPI_Recv", 2) == Approx(2.2));
  CHECK(metric_of(t, table, "delay_latesender", "main/foo", 0) == Approx(2.0));
  CHECK(metric_of(t, table, "delay_latesender", "main/MPI_Recv", 1) == Approx(0.2));
  CHECK(metric_of(t, table, "delay_latesender_longterm", "main/foo", 0) == Approx(2.0));
  CHECK(metric_value(table, "delay_latesender") == Approx(2.2));
  CHECK(metric_value(table, "delay_latesender_longterm") == Approx(2.0));
  // Delay.MPI.pattern's tree: A's foo 2.0 + 2.0, B's MPI_Recv 0.2; all of it point to point.
  CHECK(metric_of(t, table, "delay_latesender_aggregate", "main/foo", 0) == Approx(4.0));
  CHECK(metric_of(t, table, "delay_latesender_aggregate", "main/MPI_Recv", 1) == Approx(0.2));
  for (const char* m : {"delay_latesender_aggregate", "delay_p2p", "delay_mpi", "delay"})
    CHECK(metric_value(table, m) == Approx(4.2));
  CHECK(metric_value(table, "delay_collective") == 0);
  // Propagating and terminal wait states (Waitstates.MPI.pattern): C's wait scales B's waits in
  // its interval by min(2.2 / (0.2 + 2.0), 1) = 1, so B's 2.0 propagates; C's own 2.2 causes no
  // further wait, and A waits nowhere.
  CHECK(metric_of(t, table, "mpi_wait_propagating_ls", "main/MPI_Recv", 1) == Approx(2.0));
  CHECK(metric_of(t, table, "mpi_wait_terminal_ls", "main/MPI_Recv", 1) == Approx(0.0).margin(1e-12));
  CHECK(metric_of(t, table, "mpi_wait_terminal_ls", "main/MPI_Recv", 2) == Approx(2.2));
  CHECK(metric_value(table, "mpi_wait_propagating") == Approx(2.0));
  CHECK(metric_value(table, "waitstates_propagating_vs_terminal") == Approx(4.2));
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
  const WaitPathAnalysis a = analyze_wait_paths(t);
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
  const WaitPathAnalysis a = analyze_wait_paths(t);
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
  const WaitPathAnalysis a = analyze_wait_paths(t);
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
  for (const Trace& t : {gen::generate_imbalance(im), gen::generate_halo(halo), gen::generate_phases(phases),
                         gen::generate_mpmd(mpmd)}) {
    const WaitPathAnalysis a = analyze_wait_paths(t);
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
    WaitPathAnalysis a = analyze_wait_paths(t);
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
  const WaitPathAnalysis a = analyze_wait_paths(t);
  const MetricTable table = metric_table(a);
  CHECK(metric_value(table, "mpi_latebroadcast") == Approx(3.0));
  CHECK(metric_of(t, table, "delay_12n", "main/work", 1) == Approx(3.0));
  CHECK(metric_value(table, "delay_12n") == Approx(3.0));
  CHECK(metric_of(t, table, "mpi_earlyreduce", "main/MPI_Reduce", 1) == Approx(3.0));
  CHECK(metric_of(t, table, "delay_n21", "main/work2", 0) == Approx(3.0));
  CHECK(metric_value(table, "delay_n21") == Approx(3.0));
  // Delay.MPI.pattern's tree: no long-term costs (no rank waited before the Bcast, and rank 0's
  // Bcast wait is at its previous synchronisation with rank 1), so each aggregate is its short-term
  // cost; both are collective: 3 + 3.
  CHECK(metric_of(t, table, "delay_12n_aggregate", "main/work", 1) == Approx(3.0));
  CHECK(metric_of(t, table, "delay_n21_aggregate", "main/work2", 0) == Approx(3.0));
  for (const char* m : {"delay_collective", "delay_mpi", "delay"}) CHECK(metric_value(table, m) == Approx(6.0));
  CHECK(metric_value(table, "delay_p2p") == 0);
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

// Scalasca's rules against the paper's where they differ (delay.hpp, DelayRules): negative
// delay-vector elements while the delayer itself waited in the interval.
//   A: foo [0, 3], MPI_Send entered at 3.
//   B: bar [0, 1], MPI_Recv [1, 3.2] from A (Late Sender 3 - 1 = 2), foo [3.2, 4.2], MPI_Send
//      entered at 4.2.
//   C: foo [0, 2], baz [2, 3], MPI_Recv [3, 4.4] from B (Late Sender 4.2 - 3 = 1.2).
// C's wait, delayer B, both intervals from the start: B bar 1, MPI_Recv 2.2 - its wait 2 = 0.2,
// foo 1; C foo 2, baz 1. d = (bar +1, MPI_Recv +0.2, foo -1, baz -1), Ws = 2 (B's wait).
//   Scalasca: S = Σ d⁺ = 1.2 over B's call paths, scale = min(1.2 / (1.2 + 2), 1) = 0.375:
//     short-term bar 0.375 and MPI_Recv 0.075 on B; B's wait receives 0.375 · 2 = 0.75;
//     C's wait is indirect for 0.375 · 2 = 0.75, direct for 1.2 - 0.75 = 0.45.
//   Paper: D = max(Σ d, 0) = max(-0.8, 0) = 0: nothing short-term on B, all 1.2 to B's wait; C's
//     wait is wholly indirect.
// B's wait, delayer A: A foo 3; B bar 1. d = (foo +3, bar -1), Ws = 0.
//   Scalasca: S = 3, scale = min(2/3, 1): short-term foo 2 on A; long-term 0.75 / 3 · 3 = 0.75.
//   Paper: D = 2 (Σ d), short-term 2 · 2/2 · 3/3 = 2; long-term 1.2.
// Both book all 3.2 s of waiting.
TEST_CASE("Delay rules: Scalasca's d⁺ over the delayer's call paths against the paper's heuristic",
          "[analysis][delay]") {
  HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
  h.work(0, 0, 3, "foo");
  h.send(0, 3, 3.1, 1);
  h.work(1, 0, 1, "bar");
  h.recv(1, 1, 3.2, 0);
  h.work(1, 3.2, 4.2, "foo");
  h.send(1, 4.2, 4.3, 2);
  h.work(2, 0, 2, "foo");
  h.work(2, 2, 3, "baz");
  h.recv(2, 3, 4.4, 1);
  for (Rank r = 0; r < 3; ++r) h.leave(r, 5, "main");
  const Trace t = h.finish();

  const WaitPathAnalysis s = analyze_wait_paths(t);
  const MetricTable ts = metric_table(s);
  CHECK(metric_of(t, ts, "mpi_latesender", "main/MPI_Recv", 1) == Approx(2.0));
  CHECK(metric_of(t, ts, "mpi_latesender", "main/MPI_Recv", 2) == Approx(1.2));
  CHECK(metric_of(t, ts, "delay_latesender", "main/bar", 1) == Approx(0.375));
  CHECK(metric_of(t, ts, "delay_latesender", "main/MPI_Recv", 1) == Approx(0.075));
  CHECK(metric_of(t, ts, "delay_latesender", "main/foo", 1) == 0);
  CHECK(metric_of(t, ts, "delay_latesender", "main/foo", 0) == Approx(2.0));
  CHECK(metric_of(t, ts, "delay_latesender_longterm", "main/foo", 0) == Approx(0.75));
  CHECK(metric_of(t, ts, "mpi_wait_indirect_latesender", "main/MPI_Recv", 2) == Approx(0.75));
  CHECK(metric_of(t, ts, "mpi_wait_direct_latesender", "main/MPI_Recv", 2) == Approx(0.45));
  CHECK(s.delays.unattributed == Approx(0).margin(1e-12));
  check_accounting(s);

  WaitPathOptions o;
  o.delay_rules = DelayRules::Paper;
  const WaitPathAnalysis p = analyze_wait_paths(t, o);
  const MetricTable tp = metric_table(p);
  CHECK(metric_of(t, tp, "delay_latesender", "main/bar", 1) == 0);
  CHECK(metric_of(t, tp, "delay_latesender", "main/MPI_Recv", 1) == 0);
  CHECK(metric_of(t, tp, "delay_latesender", "main/foo", 0) == Approx(2.0));
  CHECK(metric_of(t, tp, "delay_latesender_longterm", "main/foo", 0) == Approx(1.2));
  CHECK(metric_of(t, tp, "mpi_wait_indirect_latesender", "main/MPI_Recv", 2) == Approx(1.2));
  CHECK(metric_of(t, tp, "mpi_wait_direct_latesender", "main/MPI_Recv", 2) == 0);
  check_accounting(p);
}

// The completion time of a Late Receiver's waiting send (Scalasca: min(0, leave(send) -
// leave(receive request)); paper: max(0, ...)), which decides how much of that send counts in the
// next interval.
//   A: v [0, 1], MPI_Send to B [1, 3.5] (Late Receiver: B posts at 3, wait 3 - 1 = 2), x [3.5, 4.5],
//      MPI_Send to B entered at 4.5.
//   B: w [0, 3], MPI_Recv from A [3, 3.4], y [3.4, 3.6], MPI_Recv from A [3.6, 4.7] (Late Sender
//      4.5 - 3.6 = 0.9).
// B's Late Sender, delayer A since their first message: A's MPI_Send [1, 3.5] counts 2.5 minus the
// part before the synchronisation ended: Scalasca's completion time is 0 (the send left after the
// receive, 3.5 > 3.4): nothing of it counts; the paper's is 3.5 - 3.4 = 0.1. A also has x 1.0; B
// has y 0.2 (its receive's completion time is 0 under both rules).
//   Scalasca: d⁺ = (x 1.0), S = 1, scale min(0.9 / 1, 1): short-term 0.9 on x, 0 on MPI_Send.
//   Paper: d = (MPI_Send 0.1, x 1.0, y -0.2), D = 0.9, Σd⁺ = 1.1: x 0.9 · 1/1.1, MPI_Send 0.9 · 0.1/1.1.
// A's Late Receiver, delayer B from the start: B w 3, A v 1: both rules book 2 on B's w.
TEST_CASE("Delay rules: a Late Receiver's waiting send and its completion time", "[analysis][delay]") {
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) h.enter(r, 0, "main");
  h.work(0, 0, 1, "v");
  h.send(0, 1, 3.5, 1);
  h.work(0, 3.5, 4.5, "x");
  h.send(0, 4.5, 4.6, 1);
  h.work(1, 0, 3, "w");
  h.recv(1, 3, 3.4, 0);
  h.work(1, 3.4, 3.6, "y");
  h.recv(1, 3.6, 4.7, 0);
  for (Rank r = 0; r < 2; ++r) h.leave(r, 5, "main");
  const Trace t = h.finish();

  const WaitPathAnalysis s = analyze_wait_paths(t);
  const MetricTable ts = metric_table(s);
  CHECK(metric_of(t, ts, "mpi_latereceiver", "main/MPI_Send", 0) == Approx(2.0));
  CHECK(metric_of(t, ts, "mpi_latesender", "main/MPI_Recv", 1) == Approx(0.9));
  CHECK(metric_of(t, ts, "delay_latereceiver", "main/w", 1) == Approx(2.0));
  CHECK(metric_of(t, ts, "delay_latesender", "main/x", 0) == Approx(0.9));
  CHECK(metric_of(t, ts, "delay_latesender", "main/MPI_Send", 0) == 0);
  check_accounting(s);

  WaitPathOptions o;
  o.delay_rules = DelayRules::Paper;
  const WaitPathAnalysis p = analyze_wait_paths(t, o);
  const MetricTable tp = metric_table(p);
  CHECK(metric_of(t, tp, "delay_latereceiver", "main/w", 1) == Approx(2.0));
  CHECK(metric_of(t, tp, "delay_latesender", "main/x", 0) == Approx(0.9 / 1.1));
  CHECK(metric_of(t, tp, "delay_latesender", "main/MPI_Send", 0) == Approx(0.09 / 1.1));
  check_accounting(p);
}

// An N×N operation without full overlap (a member left before the latest one entered) still
// synchronises its waiting members with each other (Scalasca's synchronising-rank sets), so the
// next interval between two of them starts there, not at the program's start.
//   rank 0: a [0, 1], MPI_Allreduce [1, 2], b [2, 2.5], MPI_Recv from rank 1 [2.5, 4.1].
//   rank 1: a [0, 1.5], MPI_Allreduce [1.5, 2.5], c [2.5, 4], MPI_Send to rank 0 entered at 4.
//   rank 2: a [0, 3], MPI_Allreduce [3, 3.2].
// The Allreduce: latest entry 3 (rank 2) after rank 0's end 2; ranks 0 and 1 wait until their own
// end (1 and 1). Rank 0's Late Sender (4 - 2.5 = 1.5), delayer rank 1, counted from the Allreduce:
// rank 1 c 1.5 against rank 0 b 0.5; rank 1's a (1.5 against 1 before the Allreduce) is not in it.
TEST_CASE("Delay rules: an N×N operation without full overlap synchronises its waiting members", "[analysis][delay]") {
  HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
  h.work(0, 0, 1, "a");
  h.collective(0, 1, 2, "MPI_Allreduce", h.world());
  h.work(0, 2, 2.5, "b");
  h.recv(0, 2.5, 4.1, 1);
  h.work(1, 0, 1.5, "a");
  h.collective(1, 1.5, 2.5, "MPI_Allreduce", h.world());
  h.work(1, 2.5, 4, "c");
  h.send(1, 4, 4.05, 0);
  h.work(2, 0, 3, "a");
  h.collective(2, 3, 3.2, "MPI_Allreduce", h.world());
  for (Rank r = 0; r < 3; ++r) h.leave(r, 5, "main");
  const Trace t = h.finish();
  const WaitPathAnalysis s = analyze_wait_paths(t);
  const MetricTable ts = metric_table(s);
  CHECK(metric_of(t, ts, "mpi_wait_nxn", "main/MPI_Allreduce", 0) == Approx(1.0));
  CHECK(metric_of(t, ts, "mpi_wait_nxn", "main/MPI_Allreduce", 1) == Approx(1.0));
  CHECK(metric_of(t, ts, "mpi_latesender", "main/MPI_Recv", 0) == Approx(1.5));
  CHECK(metric_of(t, ts, "delay_latesender", "main/a", 1) == 0);
  // S = c 1.5 (b is the waiter's only), scale min(1.5 / 1.5, 1): all on c. Counted from the start,
  // d = (a +0.5, c +1.5) would give scale 0.75: a 0.375, c 1.125.
  CHECK(metric_of(t, ts, "delay_latesender", "main/c", 1) == Approx(1.5));
  check_accounting(s);
  // The paper's rules share the synchronisation points: D = 1.5 - 0.5 = 1, Σd⁺ = 1.5: c gets
  // 1.5 · 1/1 · 1.5/1.5 = 1.5 as well.
  WaitPathOptions o;
  o.delay_rules = DelayRules::Paper;
  const WaitPathAnalysis p = analyze_wait_paths(t, o);
  const MetricTable tp = metric_table(p);
  CHECK(metric_of(t, tp, "delay_latesender", "main/a", 1) == 0);
  CHECK(metric_of(t, tp, "delay_latesender", "main/c", 1) == Approx(1.5));
  check_accounting(p);
}

TEST_CASE("Delay rules: a collective member met in between hands on its share as Scalasca 2.6 does",
          "[analysis][delay]") {
  // Ranks 0-2 reduce on {0,1,2}; rank 2 (the root: latest) received from rank 1 at e1 and from
  // rank 3 (outside the communicator) at e2 in between. All synchronise in MPI_Init [0, 0.1].
  //   rank 0: a [0.1, 2.0], MPI_Allreduce [2.0, 3.1]: waits W0 = 3.0 - 2.0 = 1.0
  //   rank 1: a [0.1, 1.1], MPI_Send to 2 [1.1, 1.15], c [1.15, 2.5], MPI_Allreduce [2.5, 3.1]: W1 = 0.5
  //   rank 2: b [0.1, 0.6], MPI_Recv from 1 [0.6, 1.2] (e1: Late Sender 1.1 - 0.6 = 0.5), b [1.2, 1.7],
  //           g [1.7, 2.3] { MPI_Recv from 3 [1.7, 2.3] (e2: Late Sender 2.2 - 1.7 = 0.5) },
  //           b [2.3, 3.0], MPI_Allreduce [3.0, 3.1]
  //   rank 3: d [0.1, 2.2], MPI_Send to 2 [2.2, 2.25]
  // Rank 2 last met rank 0 in MPI_Init (its group synchronisation point) and rank 1 at e1.
  // Member 0, interval (Init, Allreduce]: d⁺ over rank 2's paths b 1.7, MPI_Recv 0.6 - 0.5 = 0.1,
  // g/MPI_Recv 0.1: S0 = 1.9, rank 2's waiting Ws0 = 0.5 + 0.5 -> s0 = W0 / 2.9.
  // Member 1, interval (e1, Allreduce]: b 1.2, g/MPI_Recv 0.1 (e1's receive pruned to 0): S1 = 1.3,
  // Ws1 = 0.5 (e2) -> s1 = W1 / 1.8.
  // Scalasca 2.6 (CalculateScales): rank 2's waits after the group point get s0 (member 1's s1 would
  // start at the next member's point after e1; there is none, so it is lost): e1 and e2 carry
  // s0 · 0.5 each. wisp's paper rules hand member 1's share to the waits after e1: e2 carries
  // s0 · 0.5 + s1 · 0.5. Each wait's carried N×N cost becomes long-term N×N delay of its delayer's
  // only call path (rank 1's a: S = 1.0, Ws = 0; rank 3's d: S = 2.1, Ws = 0).
  HandTrace h(4);
  const CommId three = h.comm({0, 1, 2});
  for (Rank r = 0; r < 4; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 0.1);
  }
  h.work(0, 0.1, 2.0, "a");
  h.collective(0, 2.0, 3.1, "MPI_Allreduce", three);
  h.work(1, 0.1, 1.1, "a");
  h.send(1, 1.1, 1.15, 2);
  h.work(1, 1.15, 2.5, "c");
  h.collective(1, 2.5, 3.1, "MPI_Allreduce", three);
  h.work(2, 0.1, 0.6, "b");
  h.recv(2, 0.6, 1.2, 1);
  h.work(2, 1.2, 1.7, "b");
  h.enter(2, 1.7, "g");
  h.recv(2, 1.7, 2.3, 3);
  h.leave(2, 2.3, "g");
  h.work(2, 2.3, 3.0, "b");
  h.collective(2, 3.0, 3.1, "MPI_Allreduce", three);
  h.work(3, 0.1, 2.2, "d");
  h.send(3, 2.2, 2.25, 2);
  h.work(3, 2.25, 3.1, "d");
  for (Rank r = 0; r < 4; ++r) {
    h.finalize(r, 4, 4.1);
    h.leave(r, 4.2, "main");
  }
  const Trace t = h.finish();
  const WaitPathAnalysis s = analyze_wait_paths(t);
  const MetricTable ts = metric_table(s);
  CHECK(metric_of(t, ts, "mpi_wait_nxn", "main/MPI_Allreduce", 0) == Approx(1.0));
  CHECK(metric_of(t, ts, "mpi_wait_nxn", "main/MPI_Allreduce", 1) == Approx(0.5));
  CHECK(metric_of(t, ts, "mpi_latesender", "main/MPI_Recv", 2) == Approx(0.5));
  CHECK(metric_of(t, ts, "mpi_latesender", "main/g/MPI_Recv", 2) == Approx(0.5));
  const double s0 = 1.0 / 2.9;  // s1 = 0.5 / 1.8 reaches no wait
  CHECK(metric_of(t, ts, "delay_n2n_longterm", "main/a", 1) == Approx(s0 * 0.5));
  CHECK(metric_of(t, ts, "delay_n2n_longterm", "main/d", 3) == Approx(s0 * 0.5));
  check_accounting(s);  // member 1's lost share s1 · 0.5 is unattributed
  WaitPathOptions o;
  o.delay_rules = DelayRules::Paper;
  const WaitPathAnalysis p = analyze_wait_paths(t, o);
  const MetricTable tp = metric_table(p);
  // The paper's rules: D = max(Σd, 0) = 0 for both members (their MPI_Allreduce before its End,
  // 1.1 and 0.6, outweighs rank 2's excess: Σd = 2.0 - 3.0 and 1.4 - 1.95), so each member's wait
  // is indirect and goes to rank 2's waits in its own interval by size: member 0 gives
  // 1.0 · 0.5 / 1.0 to e1 and to e2, member 1 gives 0.5 · 0.5 / 0.5 to e2: e1 carries 0.5, e2 1.0.
  CHECK(metric_of(t, tp, "delay_n2n_longterm", "main/a", 1) == Approx(0.5));
  CHECK(metric_of(t, tp, "delay_n2n_longterm", "main/d", 3) == Approx(1.0));
  check_accounting(p);
}
