// Analyses on traces real measurements can produce: clock skew that makes two messages wait for
// each other (the backward replays must stop, count it and still account every wait), unmatched
// messages, incomplete collectives, an empty trace. No crash, no hang, no silent loss.
#include <catch2/catch.hpp>

#include "hand_trace.hpp"
#include "wisp/analysis/analyze.hpp"

using namespace wisp;
using test::HandTrace;

TEST_CASE("Clock skew: two receives that end before their sends", "[analysis][robustness]") {
  // Each rank receives [1, 2] and then sends at 3: by the timestamps both receives wait for a
  // send that starts after them, and each send comes after the other rank's receive - a cycle.
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) {
    h.enter(r, 0, "main");
    h.recv(r, 1, 2, 1 - r);
    h.send(r, 3, 3.1, 1 - r);
    h.leave(r, 4 + r, "main");
  }
  const Trace t = h.finish();
  CHECK(t.anomalies[AnomalyKind::ReceiveBeforeSend].count == 2);
  const Analysis a = analyze(t);
  CHECK(a.waits.seconds[static_cast<int>(WaitKind::LateSender)].sum() == Approx(2.0));
  CHECK(a.delays.cycles_broken >= 1);
  CHECK(a.delays.short_sum + a.delays.long_sum + a.delays.unattributed ==
        Approx(a.delays.total_wait));
  CHECK(a.critical_path.stopped_early == 1);
  CHECK(a.critical_path.end_rank == 1);
  CHECK(a.critical_path.length > 0);
}

TEST_CASE("Unmatched messages and incomplete collectives are skipped", "[analysis][robustness]") {
  HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
  h.send(0, 1, 1.1, 1, 7);  // never received
  h.recv(2, 1, 5, 1, 9);    // never sent
  h.collective(0, 2, 3, "MPI_Barrier", h.world());  // rank 2 never reaches it
  h.collective(1, 2.5, 3, "MPI_Barrier", h.world());
  for (Rank r = 0; r < 3; ++r) h.leave(r, 6, "main");
  const Trace t = h.finish();
  CHECK(t.anomalies[AnomalyKind::UnmatchedSend].count == 1);
  CHECK(t.anomalies[AnomalyKind::IncompleteCollective].count == 1);
  const Analysis a = analyze(t);
  CHECK(a.waits.instances.empty());
  CHECK(a.critical_path.end_rank == 0);
  CHECK(a.critical_path.length == Approx(6.0));
  CHECK(a.delays.total_wait == 0);
  const MetricTable table = metric_table(a);
  CHECK(metric_value(table, "time") == Approx(18.0));
}

TEST_CASE("An empty trace gives an empty analysis", "[analysis][robustness]") {
  const Trace t = HandTrace(2).finish();
  const Analysis a = analyze(t);
  CHECK(a.critical_path.segments.empty());
  CHECK(a.critical_path.end_rank == kNone);
  CHECK(metric_table(a).records.empty());
}
