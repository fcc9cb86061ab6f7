// Cost of the views of a scenario point: the three timelines (build_timeline), report.html
// (point_html) and the Chrome trace (chrome_trace_json), timed after the point was evaluated, with
// the sizes of what they write. Answers "how long does writing report.html take on a real trace".
//   html_report_bench SCENARIO.yaml
#include <chrono>
#include <cstdio>

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
  const PointEvaluation p = evaluate_point(s, in.trace);
  std::printf("trace %s: %u ranks, %llu events; evaluate_point %.2f s\n", in.source.c_str(), in.trace.rank_count(),
              static_cast<unsigned long long>(in.trace.event_count()), since(t));
  t = std::chrono::steady_clock::now();
  const Timeline measured = build_timeline(in.trace, p.measured.wait_paths);
  const Timeline identity = build_timeline(p.result.identity_replay.trace, p.identity.wait_paths);
  const Timeline scenario = build_timeline(p.result.scenario_replay.trace, p.scenario.wait_paths);
  std::printf("timelines: %.3f s, %zu + %zu + %zu intervals\n", since(t), measured.interval_count(),
              identity.interval_count(), scenario.interval_count());
  t = std::chrono::steady_clock::now();
  const std::string html =
      point_html(s, in, p, {{"identity", &identity}, {"scenario", &scenario}, {"measured", &measured}});
  std::printf("report.html: %.3f s, %.1f MB\n", since(t), html.size() / 1e6);
  t = std::chrono::steady_clock::now();
  const std::string chrome =
      chrome_trace_json({{"measured", &measured}, {"identity", &identity}, {"scenario", &scenario}});
  std::printf("chrome trace: %.3f s, %.1f MB\n", since(t), chrome.size() / 1e6);
  return 0;
}
