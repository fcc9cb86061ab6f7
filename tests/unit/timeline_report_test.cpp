// The timeline the reports draw (analysis/timeline.hpp) on a hand-built two-rank trace whose
// intervals, waits, critical path and per-rank split are derived by hand in the comments, and the
// two renderings of it: the Chrome trace (parsed back) and report.html (its data and escaping).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>

#include "hand_trace.hpp"
#include "wisp/analysis/timeline.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/html_report.hpp"

using namespace wisp;
using test::two_rank_trace;

namespace {

struct Expected {
  const char* region;
  double start, end, wait;
  bool critical;
};

}  // namespace

TEST_CASE("Timeline of a two-rank trace, by hand", "[timeline][report]") {
  const Trace t = two_rank_trace();
  const WaitPathAnalysis a = analyze_wait_paths(t);
  const Timeline tl = build_timeline(t, a);
  REQUIRE(tl.lanes.size() == 2);
  CHECK(tl.interval_count() == 12);
  // The critical path (analysis test: Init 0-1, A 1-5 on rank 0, MPI_Recv 5-5.2, C 5.2-8 on rank 1).
  const Expected expected[2][6] = {{{"MPI_Init", 0, 1, 0, true},
                                    {"A", 1, 5, 0, true},
                                    {"MPI_Send", 5, 5.1, 0, false},
                                    {"main", 5.1, 6, 0, false},
                                    {"MPI_Finalize", 6, 8.5, 2, false},
                                    {"main", 8.5, 8.6, 0, false}},
                                   {{"MPI_Init", 0, 1, 0, false},
                                    {"B", 1, 2, 0, false},
                                    {"MPI_Recv", 2, 5.2, 3, true},
                                    {"C", 5.2, 8, 0, true},
                                    {"MPI_Finalize", 8, 8.5, 0, false},
                                    {"main", 8.5, 8.6, 0, false}}};
  for (Rank r = 0; r < 2; ++r) {
    const TimelineLane& lane = tl.lanes[r];
    CHECK(lane.master);
    CHECK(lane.name == "rank " + std::to_string(r));
    REQUIRE(lane.start.size() == 6);
    for (std::size_t i = 0; i < 6; ++i) {
      INFO("rank " << r << " interval " << i);
      CHECK(tl.labels[lane.label[i]].region == expected[r][i].region);
      CHECK(lane.start[i] == Approx(expected[r][i].start));
      CHECK(lane.end[i] == Approx(expected[r][i].end));
      CHECK(lane.wait[i] == Approx(expected[r][i].wait));
      CHECK(static_cast<bool>(lane.critical[i]) == expected[r][i].critical);
    }
  }
  CHECK(tl.labels[tl.lanes[0].label[1]].name == "main/A");
  CHECK_FALSE(tl.labels[tl.lanes[0].label[1]].mpi);
  CHECK(tl.labels[tl.lanes[1].label[2]].mpi);

  SECTION("the flagged intervals hold exactly the analysis's critical path") {
    double covered = 0;
    for (const PathSegment& s : a.critical_path.segments) {
      const TimelineLane& lane = tl.lanes[s.rank];
      for (std::size_t i = 0; i < lane.start.size(); ++i) {
        const double overlap = std::min(s.end, lane.end[i]) - std::max(s.start, lane.start[i]);
        if (overlap > 0) {
          CHECK(lane.critical[i] == 1);
          covered += overlap;
        }
      }
    }
    CHECK(covered == Approx(a.critical_path.length));
    CHECK(tl.critical_path.size() == a.critical_path.segments.size());
  }
  SECTION("per rank: computation, MPI without waiting, waiting") {
    // rank 0: A 4 + main 0.9 + 0.1; Init 1 + Send 0.1 + Finalize 2.5 - 2; waits 2
    CHECK(tl.ranks[0].computation == Approx(5.0));
    CHECK(tl.ranks[0].mpi == Approx(1.6));
    CHECK(tl.ranks[0].waiting == Approx(2.0));
    // rank 1: B 1 + C 2.8 + main 0.1; Init 1 + Recv 3.2 - 3 + Finalize 0.5; waits 3
    CHECK(tl.ranks[1].computation == Approx(3.9));
    CHECK(tl.ranks[1].mpi == Approx(1.7));
    CHECK(tl.ranks[1].waiting == Approx(3.0));
  }
  SECTION("the message from its send (Enter of MPI_Send) to its receive (Leave of MPI_Recv)") {
    REQUIRE(tl.messages.size() == 1);
    CHECK(tl.messages[0].sender == 0);
    CHECK(tl.messages[0].receiver == 1);
    CHECK(tl.messages[0].send == Approx(5));
    CHECK(tl.messages[0].recv == Approx(5.2));
  }
}

TEST_CASE("Chrome trace of the two-rank timeline, parsed back", "[timeline][report][chrome]") {
  const Trace t = two_rank_trace();
  const Timeline tl = build_timeline(t, analyze_wait_paths(t));
  const std::string text = chrome_trace_json({{"identity", &tl}, {"scenario", &tl}});
  // Short records: the region as the name, whole microseconds without decimals, the call path by frame.
  CHECK(text.find("{\"name\":\"A\",\"ph\":\"X\",\"ts\":1000000,\"dur\":4000000,"
                  "\"pid\":1,\"tid\":0,\"sf\":") != std::string::npos);
  CHECK(text.find("main/A") == std::string::npos);
  const auto doc = nlohmann::json::parse(text);
  CHECK(doc["displayTimeUnit"] == "ns");
  std::map<std::string, int> phases;
  std::map<int, std::string> processes;
  for (const auto& e : doc["traceEvents"]) {
    ++phases[e["ph"].get<std::string>()];
    if (e["name"] == "process_name") processes[e["pid"].get<int>()] = e["args"]["name"];
  }
  CHECK(phases["X"] == 24);  // 12 intervals per timeline
  CHECK(phases["s"] == 2);   // one message per timeline
  CHECK(phases["f"] == 2);
  CHECK(processes == std::map<int, std::string>{{1, "identity"}, {2, "scenario"}});
  // The call path of an event from its stack frame up the parents; both timelines share the frames.
  const auto& frames = doc["stackFrames"];
  const auto callpath = [&](const nlohmann::json& e) {
    std::string path;
    for (std::string id = std::to_string(e["sf"].get<int>()); !id.empty();) {
      const auto& f = frames.at(id);
      path = f["name"].get<std::string>() + (path.empty() ? "" : "/" + path);
      id = f.contains("parent") ? f["parent"].get<std::string>() : "";
    }
    return path;
  };
  CHECK(frames.size() == tl.labels.size());
  CHECK(frames.at("1")["name"] == tl.labels[0].region);
  int checked = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"] != 1) continue;
    if (e["name"] == "A") {  // rank 0, 1 s to 5 s, on the critical path
      CHECK(e["tid"] == 0);
      CHECK(e["ts"].get<double>() == Approx(1e6));
      CHECK(e["dur"].get<double>() == Approx(4e6));
      CHECK_FALSE(e.contains("cat"));  // computation: no category (its stack frame has it)
      CHECK(e["args"]["critical"] == 1);
      CHECK(callpath(e) == "main/A");
      ++checked;
    }
    if (e["name"] == "MPI_Recv") {  // rank 1, 2 s to 5.2 s, 3 s Late Sender
      CHECK(e["tid"] == 1);
      CHECK(e["ts"].get<double>() == Approx(2e6));
      CHECK(e["dur"].get<double>() == Approx(3.2e6));
      CHECK(e["cat"] == "mpi");
      CHECK(e["args"]["wait_us"].get<double>() == Approx(3e6));
      CHECK(callpath(e) == "main/MPI_Recv");
      ++checked;
    }
  }
  CHECK(checked == 2);
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "f" && e["pid"] == 1) CHECK(e["ts"].get<double>() == Approx(5.2e6));
}

TEST_CASE("Chrome trace numbers: microseconds to the nanosecond, no trailing zeros", "[timeline][report][chrome]") {
  Timeline tl;
  tl.labels = {{"main", "main", false, kNone, "main"}, {"main/MPI_Recv", "MPI_Recv", true, 0, "MPI_Recv"}};
  TimelineLane lane;
  lane.rank = 0;
  lane.name = "rank 0";
  lane.start = {1.5e-6, 2.0};         // 1.5 µs; 2 s
  lane.end = {2.0015e-3, 2.0000001};  // 2001.5 µs; 2 s + 0.1 µs
  lane.label = {0, 1};
  lane.wait = {0, 1.234e-8};  // 0.01234 µs waiting rounds to 0.012
  lane.critical = {0, 1};
  tl.lanes = {lane};
  tl.ranks.resize(1);
  const std::string text = chrome_trace_json({{"measured", &tl}});
  CHECK(text.find("{\"name\":\"main\",\"ph\":\"X\",\"ts\":1.5,\"dur\":2000,\"pid\":1,\"tid\":0,\"sf\":1},") !=
        std::string::npos);
  CHECK(text.find("{\"name\":\"MPI_Recv\",\"cat\":\"mpi\",\"ph\":\"X\",\"ts\":2000000,\"dur\":0.1,\"pid\":1,\"tid\":0,"
                  "\"sf\":2,\"args\":{\"wait_us\":0.012,\"critical\":1}}") != std::string::npos);
  const auto doc = nlohmann::json::parse(text);
  CHECK(doc["stackFrames"]["2"]["parent"] == "1");
  CHECK(doc["stackFrames"]["2"]["category"] == "mpi");
  CHECK_FALSE(doc["stackFrames"]["1"].contains("parent"));
}

TEST_CASE("report.html of an analysis: one page, data inline and escaped", "[timeline][report][html]") {
  const Trace t = two_rank_trace("x</script><b>");
  const TraceAnalysis a = analyze_trace(t);
  const Timeline tl = build_timeline(t, a.wait_paths);
  const std::string html = analysis_html("two-ranks", t, a, tl);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("{{") == std::string::npos);
  CHECK(html.find("d3={version:\"3.") != std::string::npos);  // d3 inlined at build time
  CHECK(html.find("x</script>") == std::string::npos);        // a region name cannot end the data
  CHECK(html.find("x\\u003c/script>") != std::string::npos);
  const auto begin = html.find("id=\"wisp-data\">") + 15;
  const auto data = nlohmann::json::parse(html.substr(begin, html.find("</script>", begin) - begin));
  CHECK(data["report"]["kind"] == "analysis");
  REQUIRE(data["timelines"].size() == 1);
  const auto& lane = data["timelines"][0]["lanes"][0];
  CHECK(lane["d"].size() == 6);
  CHECK(lane["d"][1] == 4'000'000'000LL);                              // A: 4 s in nanoseconds
  CHECK(data["timelines"][0]["lanes"][1]["w"][2] == 3'000'000'000LL);  // MPI_Recv waits 3 s
}
