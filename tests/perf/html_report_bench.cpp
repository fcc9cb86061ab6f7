// Cost of the views of a scenario point: the three timelines (build_timeline), report.html
// (point_html) and the Chrome trace (chrome_trace_json), timed after the point was evaluated, with
// the sizes of what they write. Answers "how long does writing report.html take on a real trace".
//   html_report_bench SCENARIO.yaml
#include <chrono>
#include <cstdio>
#include <map>

#include "wisp/analysis/timeline.hpp"
#include "wisp/report/chrome_trace.hpp"
#include "wisp/report/html_report.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/trace_source.hpp"

using namespace wisp;

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: html_report_bench SCENARIO.yaml\n");
    return 2;
  }
  const Scenario s = load_scenario(argv[1]);
  const ScenarioTrace in = load_trace(s);
  auto t = std::chrono::steady_clock::now();
  double timeline_seconds = 0;
  std::map<std::string, Timeline> timelines;  // made while evaluate_point holds each trace
  const PointEvaluation p =
      evaluate_point(s, in.trace, [&](const std::string& name, const Trace& trace, const TraceAnalysis& a) {
        const auto start = std::chrono::steady_clock::now();
        timelines[name] = build_timeline(trace, a.wait_paths);
        timeline_seconds += since(start);
      });
  std::printf("trace %s: %u ranks, %llu events; evaluate_point %.2f s\n", in.source.c_str(), in.trace.rank_count(),
              static_cast<unsigned long long>(in.trace.event_count()), since(t) - timeline_seconds);
  const Timeline& measured = timelines.at("measured");
  const Timeline& identity = timelines.at("identity");
  const Timeline& scenario = timelines.at("scenario");
  std::printf("timelines: %.3f s, %zu + %zu + %zu intervals\n", timeline_seconds, measured.interval_count(),
              identity.interval_count(), scenario.interval_count());
  t = std::chrono::steady_clock::now();
  const std::string html =
      point_html(s, in.source, p, {{"identity", &identity}, {"scenario", &scenario}, {"measured", &measured}});
  std::printf("report.html: %.3f s, %.1f MB\n", since(t), html.size() / 1e6);
  t = std::chrono::steady_clock::now();
  const std::string chrome =
      chrome_trace_json({{"measured", &measured}, {"identity", &identity}, {"scenario", &scenario}});
  std::printf("chrome trace: %.3f s, %.1f MB\n", since(t), chrome.size() / 1e6);
  return 0;
}
