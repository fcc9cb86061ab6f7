// How the verbs run the analyses' steps (analysis/step_runner.hpp): side by side on the cores given,
// each timed and logged with the process's memory (`wisp -vv`), and freed memory handed back to the
// system between them. The analyses themselves neither time, start threads nor release memory.
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "wisp/analysis/step_runner.hpp"
#include "wisp/scenario/evaluate.hpp"

namespace wisp::driver {

class AnalysisRunner : public StepRunner {
 public:
  // `cores`: 0 = one per core of the machine; 1 = one step after another (one process per core).
  explicit AnalysisRunner(unsigned cores = 0);
  void step(const char* what, const std::function<void()>& work) override;
  std::function<void()> beside(std::function<void()> work) override;
  void freed() override;
  unsigned threads() const override { return cores_; }
  // Wall seconds of each step, in the order they ended.
  std::vector<std::pair<std::string, double>> timings() const;

 private:
  unsigned cores_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, double>> timings_;
};

// A scenario point's analyses (scenario/evaluate.hpp) in this process, on an AnalysisRunner of every core.
TraceAnalyzer on_every_core();

}  // namespace wisp::driver
