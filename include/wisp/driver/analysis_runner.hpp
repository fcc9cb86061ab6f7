// How the verbs run the analyses' steps (analysis/step_runner.hpp): side by side on the cores given,
// each timed and logged with the process's memory (`wisp -vv`), and freed memory handed back to the
// system between them. The analyses themselves neither time, start threads nor release memory.
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "wisp/analysis/step_runner.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/scenario/evaluate.hpp"

namespace wisp::driver {

class AnalysisRunner : public StepRunner {
 public:
  // `cores`: 0 = one per core of the machine; 1 = one step after another (one process per core).
  // `group`: the group this process analyses in, if any: its number and each step's seconds in the
  // group's exchanges go into the log.
  explicit AnalysisRunner(unsigned cores = 0, const ProcessGroup* group = nullptr);
  void step(const char* what, const std::function<void()>& work) override;
  std::function<void()> beside(std::function<void()> work) override;
  void freed() override;
  unsigned threads() const override { return cores_; }
  // Wall seconds of each step, in the order they ended.
  std::vector<std::pair<std::string, double>> timings() const;

 private:
  unsigned cores_;
  const ProcessGroup* group_;
  std::string who_;  // "analyze" or "analyze, process N"
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, double>> timings_;
};

// A scenario point's analyses (scenario/evaluate.hpp) in this process, on an AnalysisRunner of every core.
TraceAnalyzer on_every_core();

}  // namespace wisp::driver
