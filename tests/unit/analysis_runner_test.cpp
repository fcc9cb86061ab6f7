// The driver's AnalysisRunner (how the verbs run the analyses' steps) against the analysis layer's
// default: work handed beside the caller runs on its own thread and its errors reach the join; every
// step is timed once; without cores to spare, beside() runs the work at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "wisp/driver/analysis_runner.hpp"

using namespace wisp;

TEST_CASE("AnalysisRunner: steps beside the caller run on another thread, their errors reach the join",
          "[analysis_runner]") {
  driver::AnalysisRunner two(2);
  CHECK(two.threads() == 2);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id worker;
  const auto join = two.beside([&] { two.step("beside", [&] { worker = std::this_thread::get_id(); }); });
  two.step("here", [] {});
  join();
  CHECK(worker != caller);
  REQUIRE(two.timings().size() == 2);

  const auto failed = two.beside([] { throw std::runtime_error("step failed"); });
  CHECK_THROWS_WITH(failed(), "step failed");
}

TEST_CASE("AnalysisRunner on one core and the default runner: beside() runs the work at once", "[analysis_runner]") {
  driver::AnalysisRunner one(1);
  for (StepRunner* r : {static_cast<StepRunner*>(&one), &one_after_another()}) {
    std::atomic<int> ran{0};
    const auto join = r->beside([&] { ++ran; });
    CHECK(ran == 1);  // before the join
    join();
    CHECK(r->threads() == 1);
  }
  CHECK(one.timings().empty());  // beside() itself is no step
}
