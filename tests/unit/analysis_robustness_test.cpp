// Analyses on traces real measurements can produce: clock skew that makes two messages wait for
// each other (the backward replays must stop, count it and still account every wait), unmatched
// messages, incomplete collectives, an empty trace. No crash, no hang, no silent loss; also for
// everything `wisp analyze` computes and reports (analyze_trace).
#include <catch2/catch.hpp>

#include "hand_trace.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/report/trace_analysis_report.hpp"

using namespace wisp;
using test::HandTrace;

namespace {

// Each rank receives [1, 2] and then sends at 3: by the timestamps both receives wait for a send
// that starts after them, and each send comes after the other rank's receive - a cycle.
Trace skewed_exchange() {
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) {
    h.enter(r, 0, "main");
    h.recv(r, 1, 2, 1 - r);
    h.send(r, 3, 3.1, 1 - r);
    h.leave(r, 4 + r, "main");
  }
  return h.finish();
}

}  // namespace

TEST_CASE("Clock skew: two receives that end before their sends", "[analysis][robustness]") {
  const Trace t = skewed_exchange();
  CHECK(t.anomalies[AnomalyKind::ReceiveBeforeSend].count == 2);
  const WaitPathAnalysis a = analyze_wait_paths(t);
  CHECK(a.waits.seconds[static_cast<int>(WaitKind::LateSender)].sum() == Approx(2.0));
  CHECK(a.delays.cycles_broken >= 1);
  CHECK(a.delays.short_sum + a.delays.long_sum + a.delays.unattributed == Approx(a.delays.total_wait));
  CHECK(a.critical_path.stopped_early == 1);
  CHECK(a.critical_path.end_rank == 1);
  CHECK(a.critical_path.length > 0);
}

TEST_CASE("Unmatched messages and incomplete collectives are skipped", "[analysis][robustness]") {
  HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
  h.send(0, 1, 1.1, 1, 7);                          // never received
  h.recv(2, 1, 5, 1, 9);                            // never sent
  h.collective(0, 2, 3, "MPI_Barrier", h.world());  // rank 2 never reaches it
  h.collective(1, 2.5, 3, "MPI_Barrier", h.world());
  for (Rank r = 0; r < 3; ++r) h.leave(r, 6, "main");
  const Trace t = h.finish();
  CHECK(t.anomalies[AnomalyKind::UnmatchedSend].count == 1);
  CHECK(t.anomalies[AnomalyKind::IncompleteCollective].count == 1);
  const WaitPathAnalysis a = analyze_wait_paths(t);
  CHECK(a.waits.instances.empty());
  CHECK(a.critical_path.end_rank == 0);
  CHECK(a.critical_path.length == Approx(6.0));
  CHECK(a.delays.total_wait == 0);
  const MetricTable table = metric_table(a);
  CHECK(metric_value(table, "time") == Approx(18.0));
}

TEST_CASE("An empty trace gives an empty analysis", "[analysis][robustness]") {
  const Trace t = HandTrace(2).finish();
  const WaitPathAnalysis a = analyze_wait_paths(t);
  CHECK(a.critical_path.segments.empty());
  CHECK(a.critical_path.end_rank == kNone);
  CHECK(metric_table(a).records.empty());
}

TEST_CASE("All of wisp analyze on skewed, incomplete and empty traces", "[analysis][robustness]") {
  SECTION("clock skew: both receives end before their sends") {
    const Trace t = skewed_exchange();
    const TraceAnalysis a = analyze_trace(t);
    REQUIRE((a.pag && a.waits && a.pop));  // every part asked for by default
    CHECK(a.pag->pag.anomalies.receive_before_send == 2);
    CHECK(a.pag->pag.seconds(a.pag->cpm.length) == Approx(5.0));  // the run, receives treated as local
    const auto j = trace_analysis_json(t, "skew", a);
    CHECK(j["pag"]["anomalies"]["receive_before_send"] == 2);
    CHECK(j["wait_estimate"].size() == 2);
    CHECK(!j["pop"]["windows"].empty());
    CHECK(trace_analysis_text(t, "skew", a).find("POP efficiency factors") != std::string::npos);
  }
  SECTION("unmatched messages, an incomplete barrier") {
    HandTrace h(3);
    for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
    h.send(0, 1, 1.1, 1, 7);
    h.recv(2, 1, 5, 1, 9);
    h.collective(0, 2, 3, "MPI_Barrier", h.world());
    h.collective(1, 2.5, 3, "MPI_Barrier", h.world());
    for (Rank r = 0; r < 3; ++r) h.leave(r, 6, "main");
    const Trace t = h.finish();
    const TraceAnalysis a = analyze_trace(t);
    REQUIRE((a.pag && a.waits && a.pop));  // every part asked for by default
    CHECK(a.pag->pag.seconds(a.pag->cpm.length) == Approx(6.0));
    CHECK(trace_analysis_json(t, "x", a).contains("pop"));
  }
  SECTION("no events") {
    const Trace t = HandTrace(2).finish();
    const TraceAnalysis a = analyze_trace(t);
    REQUIRE((a.pag && a.waits && a.pop));  // every part asked for by default
    CHECK(a.pag->paths.paths.empty());
    CHECK(a.pag->mbm.empty());
    CHECK(a.waits->rows.empty());
    CHECK(a.pop->windows.empty());
    CHECK_FALSE(a.pop->window_options);
    const auto j = trace_analysis_json(t, "empty", a);
    CHECK(j["pag"]["paths"].empty());
    CHECK(j["pop"]["windows"].empty());
    CHECK(j["pop"]["load_balance"].is_null());
    CHECK(!trace_analysis_text(t, "empty", a).empty());
  }
}
