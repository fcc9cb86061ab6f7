// Counter samples (OTF2 metrics) kept: read from Score-P's PAPI ping-pong as otf2-print lists them,
// moved with the timeline they were sampled on, and written back so that otf2-print counts the same
// records per location in the simulated trace as in the measured one.
#include <catch2/catch.hpp>

#include <otf2/otf2.h>

#include <cstdio>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/generate/command_line.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/scenario/transform.hpp"
#include "wisp/trace/metrics.hpp"
#include "wisp/trace/other_locations.hpp"

using namespace wisp;

namespace {

// otf2-print's METRIC lines of one location: "<timestamp> <the values as printed>", in order,
// and for each the record that follows it on that location (ENTER or LEAVE) with its timestamp.
struct PrintedMetric {
  std::string values;
  std::uint64_t time = 0, next_time = 0;
  std::string next;
};
std::vector<PrintedMetric> printed_metrics(const std::filesystem::path& anchor, std::uint64_t location) {
  const auto lines = test::otf2_print_lines(anchor, "-L " + std::to_string(location));
  REQUIRE(lines);
  std::vector<PrintedMetric> out;
  bool open = false;
  const std::regex record(R"(^(\S+)\s+(\d+)\s+(\d+)\s*(.*)$)");
  for (const std::string& line : *lines) {
    std::smatch m;
    if (!std::regex_match(line, m, record)) continue;
    const std::uint64_t t = std::stoull(m[3].str());
    if (open) out.back().next = m[1].str(), out.back().next_time = t, open = false;
    if (m[1].str() == "METRIC") out.push_back({m[4].str(), t, 0, ""}), open = true;
  }
  return out;
}

}  // namespace

TEST_CASE("metrics: the PAPI ping-pong's counters are read as otf2-print lists them", "[otf2][metrics][real]") {
  const Trace t = read_otf2(test::real_trace("scorep-ping-pong-papi"));
  // otf2-print -G: three PAPI members (UINT64, accumulated from the start), one strictly synchronous class.
  REQUIRE(t.defs.metric_members.size() == 3);
  CHECK(t.defs.metric_members[0].name == "PAPI_TOT_CYC");
  CHECK(t.defs.metric_members[2].name == "PAPI_BR_MSP");
  CHECK(t.defs.metric_members[1].unit == "#");
  REQUIRE(t.defs.metric_classes.size() == 1);
  CHECK(t.defs.metric_classes[0].members == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(t.skipped_records.count("Metric") == 0);
  CHECK(t.event_count() == 2 * 102 - 84);  // otf2-print: 102 records per location, 42 of them METRIC
  for (Rank r = 0; r < 2; ++r) {
    REQUIRE(t.ranks[r].metrics.size() == 1);  // the master's only: no metric locations
    const MetricSamples& m = t.ranks[r].metrics[0];
    REQUIRE(m.samples.size() == 42);
    // Strictly synchronous: every sample precedes an enter or leave at its own time.
    for (const MetricSample& s : m.samples) {
      REQUIRE(s.before < t.ranks[r].events.size());
      CHECK(t.ranks[r].events[s.before].time == s.time);
    }
  }
  // otf2-print: rank 0's first sample is PAPI_TOT_CYC 98850, PAPI_L2_TCM 2191, PAPI_BR_MSP 421.
  const MetricSamples& first = t.ranks[0].metrics[0];
  CHECK(first.values[0] == 98850);
  CHECK(first.values[1] == 2191);
  CHECK(first.values[2] == 421);
}

TEST_CASE("metrics: the simulated PAPI ping-pong holds every record of the measured one", "[otf2][metrics][real]") {
  const auto dir = test::real_trace("scorep-ping-pong-papi");
  test::TempDir out;
  const test::WrittenIdentity w = test::written_identity(dir, out);
  const Trace& measured = w.measured;
  CHECK(w.after == w.before);  // per location and record name: 42 METRIC each, and every other record
  // Each sample keeps its values and its place: right before the same kind of record, at its time.
  for (std::uint64_t location : {0, 1}) {
    const auto measured_metrics = printed_metrics(dir / "traces.otf2", location);
    const auto written = printed_metrics(out / "id" / "traces.otf2", location);
    REQUIRE(measured_metrics.size() == 42);
    REQUIRE(written.size() == measured_metrics.size());
    for (std::size_t i = 0; i < written.size(); ++i) {
      CHECK(written[i].values == measured_metrics[i].values);
      CHECK(written[i].next == measured_metrics[i].next);
      CHECK(written[i].time == written[i].next_time);
    }
  }
  const Trace back = read_otf2(out / "id");
  REQUIRE(back.defs.metric_members.size() == 3);
  CHECK(back.defs.metric_members[0].description == measured.defs.metric_members[0].description);
  CHECK(back.ranks[1].metrics[0].values == measured.ranks[1].metrics[0].values);
}

TEST_CASE("metrics: a sample at an event keeps that event's new time; any other follows the timeline", "[metrics]") {
  test::TinyTrace tiny(1);
  tiny.work(0, "compute", 1, 5);
  Trace original = tiny.finish(6e-6);
  RankTrace& rt = original.ranks[0];
  REQUIRE(rt.events.size() >= 3);
  MetricSamples master, location;
  master.samples = {{rt.events[1].time, 0, 0, 1}, {(rt.events[1].time + rt.events[2].time) / 2, 0, 1, 2}};
  master.values = {7, 8};
  location.samples = {{(rt.events[1].time + rt.events[2].time) / 2, 0, 0, kNone}};
  location.values = {9};
  rt.metrics = {master, location};
  RankTrace moved = rt;
  for (std::size_t i = 1; i < moved.events.size(); ++i) moved.events[i].time = rt.events[i].time * 2 + 1;
  move_other_locations(rt, moved);
  CHECK(moved.metrics[0].samples[0].time == moved.events[1].time);  // at event 1: its new time
  const double mid = (moved.events[1].time + moved.events[2].time) / 2;
  CHECK(moved.metrics[0].samples[1].time == Approx(mid));  // between events 1 and 2: linear
  CHECK(moved.metrics[1].samples[0].time == Approx(mid));  // a metric location's sample: the same rule
  CHECK(moved.metrics[0].values == std::vector<std::uint64_t>{7, 8});
}

TEST_CASE("metrics: a generated trace with a cycle counter is written and read back sample for sample",
          "[metrics][generate]") {
  const Trace t = gen::generate_from_command_line("imbalance --ranks 3 --iterations 4 --cycle-counter");
  std::uint64_t enters_and_leaves = 0;
  for (const RankTrace& rt : t.ranks)
    for (const Event& e : rt.events) enters_and_leaves += e.kind == EventKind::Enter || e.kind == EventKind::Leave;
  test::TempDir out;
  write_otf2(t, out / "t");
  const auto printed = test::otf2_print_counts(out / "t" / "traces.otf2");
  REQUIRE(printed);
  std::uint64_t metrics = 0, enters = 0;
  for (const auto& [location, counts] : *printed) {
    metrics += counts.count("METRIC") ? counts.at("METRIC") : 0;
    enters += counts.at("ENTER") + counts.at("LEAVE");
  }
  CHECK(enters == enters_and_leaves);
  CHECK(metrics == enters_and_leaves);  // one sample before every enter and leave
  const Trace back = read_otf2(out / "t");
  REQUIRE(back.ranks[2].metrics.size() == 1);
  CHECK(back.ranks[2].metrics[0].values == t.ranks[2].metrics[0].values);
  CHECK(back.defs.metric_members.at(0).name == "cycles");
}

TEST_CASE("metrics: a scenario's trace of the PAPI ping-pong keeps every sample at its event", "[metrics][real]") {
  const auto dir = test::real_trace("scorep-ping-pong-papi");
  const Trace measured = read_otf2(dir);
  Transform half;  // main's own computation twice as fast: every later event moves
  half.kind = TransformKind::Scale;
  half.select.region = "int main(int, char**)";
  half.factor = 0.5;
  const Trace scaled = apply_transforms(measured, {half}).trace;
  REQUIRE(scaled.end_time() < measured.end_time());
  test::TempDir out;
  write_otf2(scaled, out / "s");
  const auto before = test::otf2_print_counts(dir / "traces.otf2");
  const auto after = test::otf2_print_counts(out / "s" / "traces.otf2");
  REQUIRE((before && after));
  CHECK(*after == *before);  // a scale removes nothing: every record is there
  for (std::uint64_t location : {0, 1}) {
    const auto written = printed_metrics(out / "s" / "traces.otf2", location);
    const auto measured_metrics = printed_metrics(dir / "traces.otf2", location);
    REQUIRE(written.size() == measured_metrics.size());
    for (std::size_t i = 0; i < written.size(); ++i) {
      CHECK(written[i].values == measured_metrics[i].values);  // counters are the measured run's
      CHECK(written[i].time == written[i].next_time);          // still taken at their event
    }
  }
}

TEST_CASE("metrics: the other threads' counters are kept, each at its region event, in a replay and a scenario",
          "[metrics][generate]") {
  // Score-P records PAPI counters on every OpenMP thread: the hybrid generator's threads count cycles.
  const Trace t = gen::generate_from_command_line("hybrid --ranks 2 --threads 3 --iterations 5 --cycle-counter");
  test::TempDir out;
  write_otf2(t, out / "m");
  const auto measured = test::otf2_print_counts(out / "m" / "traces.otf2");
  REQUIRE(measured);
  REQUIRE(measured->size() == 2 * 3);  // two masters and two other threads per rank
  for (const auto& [location, counts] : *measured) {
    CAPTURE(location);
    CHECK(counts.at("METRIC") == counts.at("ENTER") + counts.at("LEAVE"));  // one before each
  }
  const Trace back = read_otf2(out / "m");
  REQUIRE(back.ranks[1].other_metrics.size() == 2);
  CHECK(back.ranks[1].other_metrics[1].values == t.ranks[1].other_metrics[1].values);
  CHECK(back.skipped_records.empty());
  CHECK(test::run_wisp("info '" + (out / "m").string() + "'").out.find("on the other threads and streams") !=
        std::string::npos);

  Transform half;  // the parallel region twice as fast: every later event of every thread moves
  half.kind = TransformKind::Scale;
  half.select.region = "!$omp parallel @hybrid.c:10";
  half.factor = 0.5;
  const Trace replayed = test::anchored_identity(back).trace;
  const Trace scaled = apply_transforms(back, {half}).trace;
  REQUIRE(scaled.end_time() < back.end_time());
  for (const Trace* s : {&replayed, &scaled}) {
    WriteOptions replace;
    replace.force = true;
    write_otf2(*s, out / "s", replace);
    CHECK(test::otf2_print_counts(out / "s" / "traces.otf2") == measured);
    for (const auto& [location, counts] : *measured) {
      CAPTURE(location);
      const auto written = printed_metrics(out / "s" / "traces.otf2", location);
      const auto before = printed_metrics(out / "m" / "traces.otf2", location);
      REQUIRE(written.size() == before.size());
      for (std::size_t i = 0; i < written.size(); ++i) {
        CHECK(written[i].values == before[i].values);
        CHECK(written[i].next == before[i].next);
        CHECK(written[i].time == written[i].next_time);  // still taken at its event
      }
    }
  }
}

TEST_CASE("metrics: metric instances and class recorders are read and written back", "[metrics][otf2]") {
  // No shared trace has them: a hand-made one. Rank 1 records an instance of a class (one DOUBLE
  // member) for rank 0's process (scope LOCATION_GROUP); rank 0 is the class's recorder.
  test::TinyTrace tiny(2);
  tiny.work(0, "compute", 1, 5);
  tiny.work(1, "compute", 1, 5);
  Trace t = tiny.finish(6);
  t.defs.metric_members.push_back({"power", "Power of the node", "W", OTF2_METRIC_TYPE_OTHER,
                                   OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0});
  MetricClass power;
  power.members = {0};
  power.occurrence = OTF2_METRIC_ASYNCHRONOUS;
  power.recorder_kind = OTF2_RECORDER_KIND_ABSTRACT;
  t.defs.metric_classes.push_back(power);
  MetricClass instance = power;
  instance.instance_of = 0;
  instance.recorder = t.defs.ranks[1].otf2_id;
  instance.scope_kind = OTF2_SCOPE_LOCATION_GROUP;
  instance.scope = 0;
  t.defs.metric_classes.push_back(instance);
  t.defs.metric_recorders.push_back({0, t.defs.ranks[0].otf2_id});
  MetricSamples samples;
  const double watts[] = {41.5, 43.25};
  for (int i = 0; i < 2; ++i) {
    samples.samples.push_back({t.ranks[1].events[2 + i].time, 1, static_cast<std::uint32_t>(i), 2u + i});
    std::uint64_t bits = 0;
    std::memcpy(&bits, &watts[i], 8);
    samples.values.push_back(bits);
  }
  t.ranks[1].metrics = {samples};
  test::TempDir out;
  write_otf2(t, out / "t");

  const Trace back = read_otf2(out / "t");
  CHECK(back.skipped_records.empty());
  REQUIRE(back.defs.metric_classes.size() == 2);
  const MetricClass& b = back.defs.metric_classes[1];
  CHECK(b.instance_of == 0);
  CHECK(b.recorder == back.defs.ranks[1].otf2_id);
  CHECK(b.scope_kind == OTF2_SCOPE_LOCATION_GROUP);
  CHECK(b.scope == 0);
  CHECK(b.members == std::vector<std::uint32_t>{0});
  REQUIRE(back.defs.metric_recorders.size() == 1);
  CHECK(back.defs.metric_recorders[0].location == back.defs.ranks[0].otf2_id);
  REQUIRE(back.ranks[1].metrics.size() == 1);
  CHECK(back.ranks[1].metrics[0].samples.size() == 2);
  CHECK(back.ranks[1].metrics[0].samples[1].metric_class == 1);
  CHECK(back.ranks[1].metrics[0].values == samples.values);
  // otf2-print -G decodes the definitions as OTF2 defines them; otf2-print the samples' values.
  const auto definitions = test::otf2_print_lines(out / "t" / "traces.otf2", "-G");
  REQUIRE(definitions);
  std::string printed;
  for (const std::string& line : *definitions) printed += line + "\n";
  CAPTURE(printed);
  CHECK(std::regex_search(printed, std::regex(R"(METRIC_INSTANCE\s+1\s+Class: 0, Recorder: "Master thread" <1>, )"
                                              R"(Scope: LOCATION_GROUP "MPI Rank 0" <0>)")));
  CHECK(std::regex_search(printed, std::regex(R"(METRIC_CLASS_RECORDER\s+Class: 0, Recorder: "Master thread" <0>)")));
  const auto printed_samples = printed_metrics(out / "t" / "traces.otf2", 1);
  REQUIRE(printed_samples.size() == 2);
  CHECK(printed_samples[1].values.find("43.25") != std::string::npos);
}
