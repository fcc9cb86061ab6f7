// The bounded report's timelines (analysis/timeline_summary.hpp): summary bins and windows checked
// against values computed by hand from a two-rank timeline.
#include <catch2/catch.hpp>

#include "wisp/analysis/timeline_summary.hpp"

using namespace wisp;

namespace {

// Labels: 0 "main/work" (computation), 1 "main/MPI_Recv" (MPI).
// rank 0: work [0, 3), MPI_Recv [3, 4) waiting 0.5;  rank 1: work [0, 1), MPI_Recv [1, 4) waiting 2.
Timeline two_ranks() {
  Timeline t;
  t.start = 0;
  t.end = 4;
  t.labels = {TimelineLabel{"main/work", "work", false, kNone, "work"},
              TimelineLabel{"main/MPI_Recv", "MPI_Recv", true, kNone, "MPI_Recv"}};
  for (Rank r = 0; r < 2; ++r) {
    TimelineLane l;
    l.rank = r;
    l.name = "rank " + std::to_string(r);
    const double split = r == 0 ? 3 : 1;
    l.start = {0, split};
    l.end = {split, 4};
    l.label = {0, 1};
    l.wait = {0, r == 0 ? 0.5 : 2.0};
    l.critical = {0, 0};
    t.lanes.push_back(l);
  }
  t.ranks.resize(2);
  t.messages = {TimelineMessage{1, 0, 0.5, 3.5, 8}, TimelineMessage{0, 1, 3.0, 3.2, 8}};
  t.critical_path = {PathSegment{1, 0, 0, 1}, PathSegment{1, 1, 1, 2}, PathSegment{0, 0, 2, 3}};
  return t;
}

}  // namespace

TEST_CASE("timeline summary: bins hold the group's mean computation, MPI and waiting", "[timeline]") {
  const Timeline s = summarize_timeline(two_ranks(), 2, 2);
  REQUIRE(s.lanes.size() == 1);
  const TimelineLane& l = s.lanes[0];
  CHECK(l.name == "ranks 0-1");
  CHECK(l.members == std::vector<Rank>{0, 1});
  // Bin [0, 2): computation 2 (rank 0) + 1 (rank 1) = 3, mean 1.5; MPI 1 (rank 1), mean 0.5, its
  // waiting 2 x 1/3 = 0.667, mean 0.333. Bin [2, 4): computation 1, mean 0.5; MPI 1 + 2 = 3, mean
  // 1.5; waiting 0.5 + 2 x 2/3 = 1.833, mean 0.917.
  REQUIRE(l.start.size() == 4);
  CHECK(l.start[0] == 0);
  CHECK(l.end[0] == Approx(1.5));
  CHECK(l.label[0] == 0);
  CHECK(l.end[1] - l.start[1] == Approx(0.5));
  CHECK(l.label[1] == 1);
  CHECK(l.wait[1] == Approx(2.0 / 3 / 2));
  CHECK(l.start[2] == 2);
  CHECK(l.end[2] - l.start[2] == Approx(0.5));
  CHECK(l.end[3] - l.start[3] == Approx(1.5));
  CHECK(l.wait[3] == Approx((0.5 + 4.0 / 3) / 2));
  CHECK(s.messages.empty());
  // The critical path: one segment per run on a rank (rank 1 [0, 2), rank 0 [2, 3)).
  REQUIRE(s.critical_path.size() == 2);
  CHECK(s.critical_path[0].end == 2);
  // Groups of one rank keep the ranks' names; the shares of the whole run are kept.
  const Timeline one = summarize_timeline(two_ranks(), 4, 1);
  REQUIRE(one.lanes.size() == 2);
  CHECK(one.lanes[1].name == "rank 1");
  double waiting = 0;
  for (double w : one.lanes[1].wait) waiting += w;
  CHECK(waiting == Approx(2.0));
}

TEST_CASE("timeline window: intervals, messages and path cut to the window", "[timeline]") {
  const Timeline w = timeline_window(two_ranks(), 2.5, 3.5);
  REQUIRE(w.lanes.size() == 2);
  // rank 0: work [2.5, 3), MPI_Recv [3, 3.5) with its waiting 0.5; rank 1: MPI_Recv [2.5, 3.5).
  REQUIRE(w.lanes[0].start.size() == 2);
  CHECK(w.lanes[0].start[0] == 2.5);
  CHECK(w.lanes[0].end[1] == 3.5);
  CHECK(w.lanes[0].wait[1] == 0.5);
  REQUIRE(w.lanes[1].start.size() == 1);
  CHECK(w.lanes[1].wait[0] == 1.0);  // 2 s of waiting in a 1 s piece: at most the piece
  REQUIRE(w.messages.size() == 1);   // sent at 3.0
  REQUIRE(w.critical_path.size() == 1);
  CHECK(w.critical_path[0].start == 2.5);
  // The longest window from the start holding at most 3 intervals of the two lanes: both lanes'
  // first intervals start at 0, rank 1's second at 1, rank 0's second at 3 -> [0, 3).
  const Timeline t = two_ranks();
  CHECK(window_end({&t}, 3, 0) == Approx(3.0));
  CHECK(window_end({&t}, 4, 0) == 4.0);  // everything
  // From 2.5: rank 0's work and rank 1's MPI_Recv overlap at once, rank 0's MPI_Recv from 3.
  CHECK(window_end({&t}, 2, 2.5) == Approx(3.0));
}
