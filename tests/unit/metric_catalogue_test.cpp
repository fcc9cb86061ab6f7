// The metric catalogue: unique names, parents inside the catalogue, every metric the analyses emit
// on generated traces catalogued, the wait-state names Scalasca's (MPI.pattern), the call-path
// comparison of `wisp run` as before, and `wisp analyze --list-metrics`.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "helpers.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;

TEST_CASE("metric catalogue: unique names, known parents, units and analyses", "[metric_catalogue]") {
  std::set<std::string_view> names;
  for (const MetricInfo& m : metric_catalogue()) {
    INFO(m.name);
    CHECK(names.insert(m.name).second);
    CHECK(!m.description.empty());
    CHECK((m.unit == "sec" || m.unit == "occ" || m.unit == "bytes" || m.unit == "ratio"));
  }
  for (const MetricInfo& m : metric_catalogue()) {
    INFO(m.name << " parent " << m.parent);
    if (!m.parent.empty()) CHECK(find_metric(m.parent) != nullptr);
  }
  CHECK(find_metric("no_such_metric") == nullptr);
  CHECK(analysis_keys() ==
        std::vector<std::string>{"wait_states", "critical_path", "delays", "pag", "wait_estimate", "pop"});
  std::size_t total = 0;
  for (int a = 0; a <= static_cast<int>(AnalysisKind::Pop); ++a) {
    INFO(analysis_key(AnalysisKind(a)));
    CHECK(!metrics_of(AnalysisKind(a)).empty());
    total += metrics_of(AnalysisKind(a)).size();
  }
  CHECK(total == metric_catalogue().size());
}

// Issue 57: wisp's own metrics (MBM, the minimum-based estimate, POP, the collective kinds' counts
// and direct/indirect splits) are roots in the cube, and their descriptions say so. The POP factors
// have a parent in the catalogue (report.json's tree) but are roots in the cube: ratios do not add.
TEST_CASE("metric catalogue: wisp's own metrics are roots of their own and say so", "[metric_catalogue]") {
  std::size_t own = 0;
  for (const MetricInfo& m : metric_catalogue()) {
    const std::string description(m.description);
    if (description.find("(wisp") == std::string::npos) continue;
    INFO(m.name << ": " << description);
    ++own;
    if (m.unit == "ratio" && !m.parent.empty())
      CHECK(description.find("(wisp: a POP factor of its parent; a root in the cube") != std::string::npos);
    else
      CHECK((m.parent.empty() && description.find("(wisp: a root") != std::string::npos));
  }
  CHECK(own >= 20);
}

TEST_CASE("metric catalogue: the wait-state metrics are Scalasca's", "[metric_catalogue]") {
  // MPI.pattern and Counts.pattern of Scalasca 2.6, lower case, in WaitKind order.
  const char* scalasca[kWaitKindCount] = {"mpi_latesender",   "mpi_latereceiver",  "mpi_wait_nxn",
                                          "mpi_barrier_wait", "mpi_latebroadcast", "mpi_earlyreduce",
                                          "mpi_earlyscan",    "mpi_finalize_wait"};
  for (int k = 0; k < kWaitKindCount; ++k) {
    CHECK(metric_name(WaitKind(k)) == scalasca[k]);
    CHECK(find_metric(metric_name(WaitKind(k)))->analysis == AnalysisKind::WaitStates);
    CHECK(!count_metric_name(WaitKind(k)).empty());
  }
  CHECK(count_metric_name(WaitKind::LateSender) == "mpi_cls_count");
  CHECK(count_metric_name(WaitKind::LateReceiver) == "mpi_clr_count");
  CHECK(short_term_metric(WaitKind::WaitNxN) == "delay_n2n");
  CHECK(long_term_metric(WaitKind::EarlyReduce) == "delay_n21_longterm");
  CHECK(direct_wait_metric(WaitKind::LateSender) == "mpi_wait_direct_latesender");
  CHECK(indirect_wait_metric(WaitKind::LateBroadcast) == "mpi_wait_indirect_latebroadcast");
  CHECK(wait_metric(WaitRole::ShortTermDelay, WaitKind::EarlyScan).empty());
}

TEST_CASE("metric catalogue: what a what-if run compares call path by call path", "[metric_catalogue]") {
  const std::vector<std::string> none, waits{"wait_states"}, cp{"critical_path"}, delays{"delays"};
  CHECK(compared_by_callpath("time", none));
  CHECK(!compared_by_callpath("visits", waits));
  CHECK(!compared_by_callpath("mpi_latesender", none));
  CHECK(compared_by_callpath("mpi_latesender", waits));
  CHECK(compared_by_callpath("mpi_finalize_wait", waits));
  CHECK(!compared_by_callpath("mpi_cls_count", waits));
  CHECK(compared_by_callpath("critical_path", cp));
  CHECK(compared_by_callpath("critical_path_imbalance", cp));
  CHECK(!compared_by_callpath("performance_impact", cp));
  CHECK(!compared_by_callpath("critical_path", delays));
  CHECK(compared_by_callpath("delay_latesender", delays));
  CHECK(compared_by_callpath("delay_n21_longterm", delays));
  CHECK(!compared_by_callpath("mpi_wait_direct_latesender", delays));
  CHECK(!compared_by_callpath("no_such_metric", {"wait_states", "critical_path", "delays"}));
}

TEST_CASE("metric catalogue: the parts of analyze_trace() for requested analysis keys", "[metric_catalogue]") {
  const AnalysisParts all = analysis_parts(analysis_keys());
  CHECK((all.pag && all.wait_estimate && all.pop));
  const AnalysisParts some = analysis_parts({"wait_states", "pop"});
  CHECK((!some.pag && !some.wait_estimate && some.pop));
}

TEST_CASE("metric catalogue: every metric the analyses emit is catalogued", "[metric_catalogue]") {
  gen::HaloOptions halo;
  halo.steps = 5;
  halo.overload_ranks = {5};
  halo.overload = 0.5;
  gen::PhasesOptions phases;
  phases.ranks = 4;
  phases.iterations = 4;
  for (const Trace& t : {gen::generate_halo(halo), gen::generate_phases(phases)}) {
    const TraceAnalysis a = analyze_trace(t);
    CHECK(!a.table.metrics.empty());
    for (const std::string& name : a.table.metrics) {
      INFO(name);
      CHECK(find_metric(name) != nullptr);
    }
  }
}

TEST_CASE("wisp analyze --list-metrics prints the catalogue without a trace", "[metric_catalogue][cli]") {
  const auto r = test::run_wisp("analyze --list-metrics");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("description") != std::string::npos);
  for (const MetricInfo& m : metric_catalogue()) {
    INFO(m.name);
    CHECK(r.out.find(std::string(m.name) + " ") != std::string::npos);
  }
  CHECK(r.out.find("mpi_latesender                   mpi_point2point") != std::string::npos);
  CHECK(test::run_wisp("analyze").exit_code == 2);
}

TEST_CASE("wisp analyze --describe prints Scalasca's description and diagnosis of a metric",
          "[metric_catalogue][cli]") {
  // MPI.pattern's DIAGNOSIS of MPI_LATESENDER begins "Try to replace <tt>MPI_Recv</tt> with a
  // non-blocking receive <tt>MPI_Irecv</tt>"; its DESCR "Refers to the time lost waiting".
  const auto r = test::run_wisp("analyze --describe mpi_latesender");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("mpi_latesender (MPI Late Sender)") != std::string::npos);
  CHECK(r.out.find("parent: mpi_point2point, unit: sec") != std::string::npos);
  CHECK(r.out.find("Refers to the time lost waiting caused by a blocking receive operation") != std::string::npos);
  CHECK(r.out.find("Try to replace MPI_Recv with a non-blocking receive MPI_Irecv") != std::string::npos);
  // A metric Scalasca has no pattern for says what the catalogue says, no more.
  const auto own = test::run_wisp("analyze --describe mbm_all");
  CHECK(own.exit_code == 0);
  CHECK(own.out.find("Diagnosis") == std::string::npos);
  const auto unknown = test::run_wisp("analyze --describe latesend");
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.err.find("unknown metric 'latesend' (did you mean mpi_latesender") != std::string::npos);
  // Every metric with Scalasca texts is in the catalogue.
  for (const MetricInfo& m : metric_catalogue())
    if (!metric_texts(m.name).diagnosis.empty()) CHECK(!metric_texts(m.name).description.empty());
}
