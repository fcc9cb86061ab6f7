// report.html's timelines of a trace spread over processes (timeline_spread.hpp and report_views()
// with a group; threads stand in for MPI ranks) equal one process's of the whole trace: the whole
// timeline (lanes, waits, critical flags, messages in order, rank splits, critical path) and, above
// the size limit, the summary and the window (from the start, and one asked for), with their notes,
// on real traces and a generated hybrid one (the other threads' lanes), over 1-4 and 7 processes.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "thread_group.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/driver/report_views.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

void require_same_timeline(const Timeline& spread, const Timeline& whole) {
  CHECK(spread.start == whole.start);
  CHECK(spread.end == whole.end);
  CHECK(spread.labels == whole.labels);
  REQUIRE(spread.lanes.size() == whole.lanes.size());
  for (std::size_t i = 0; i < whole.lanes.size(); ++i) {
    INFO("lane " << whole.lanes[i].name);
    CHECK(spread.lanes[i] == whole.lanes[i]);
  }
  CHECK(spread.messages == whole.messages);
  CHECK(spread.ranks == whole.ranks);
  CHECK(spread.critical_path == whole.critical_path);
}

struct ViewCase {
  double limit;
  std::optional<driver::HtmlWindow> window;
};

// How many of the cases were summarized (above the limit).
int require_spread_views_like_whole(const fs::path& path) {
  int summarized = 0;
  const Trace whole = read_otf2(path);
  const WaitPathAnalysis analysis = analyze_wait_paths(whole, {});
  const ViewCase cases[] = {{50e6, std::nullopt},
                            {50e6, driver::HtmlWindow{0.1, 0.3}},
                            {0.6e6, std::nullopt},
                            {0.6e6, driver::HtmlWindow{0.05, 0.5}}};
  for (const ViewCase& c : cases) {
    const driver::ReportViews expected = driver::report_views({&whole}, {&analysis}, c.limit, false, c.window);
    summarized += expected.note.empty() ? 0 : 1;
    for (int processes : {1, 2, 3, 4, 7}) {
      INFO(path.string() << " over " << processes << " processes, limit " << c.limit << (c.window ? ", window" : ""));
      driver::ReportViews got;
      test::on_processes(processes, [&](ProcessGroup& group) {
        ReadOptions o;
        o.group = &group;
        o.threads = 1;
        const Trace share = read_otf2(path, o);
        const WaitPathAnalysis a = analyze_wait_paths(share, {}, group);
        driver::ReportViews views = driver::report_views(share, a, group, c.limit, c.window);
        if (group.process() == 0) got = std::move(views);
      });
      CHECK(got.note == expected.note);
      CHECK(got.window_note == expected.window_note);
      REQUIRE(got.shown.size() == expected.shown.size());
      for (std::size_t i = 0; i < expected.shown.size(); ++i) require_same_timeline(got.shown[i], expected.shown[i]);
      REQUIRE(got.window.size() == expected.window.size());
      for (std::size_t i = 0; i < expected.window.size(); ++i) require_same_timeline(got.window[i], expected.window[i]);
    }
  }
  return summarized;
}

}  // namespace

TEST_CASE("report.html's timelines over processes equal one process's, on real traces", "[timeline][processes]") {
  CHECK(require_spread_views_like_whole(test::real_trace("apps/sweep3d_50c_6r")) == 2);  // the summary, twice
  for (const char* name : {"apps/cloverleaf_bm_short_4r", "whatif/imb8_ring/static",
                           "other-writers/casita-2_cuda_simple", "scorep-ping-pong"})
    require_spread_views_like_whole(test::real_trace(name));
}

TEST_CASE("report.html's timelines over processes: a generated hybrid trace's thread lanes", "[timeline][processes]") {
  test::TempDir dir;
  gen::HybridOptions hybrid;
  hybrid.ranks = 5;
  hybrid.threads = 3;
  hybrid.iterations = 300;
  write_otf2(gen::generate_hybrid(hybrid), dir / "hybrid");
  CHECK(require_spread_views_like_whole(dir / "hybrid") == 2);
}
