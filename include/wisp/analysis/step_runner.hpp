// How analyze_trace() runs its steps. The analysis names each step and says which may run side by
// side; its caller decides whether they do, times them and hands freed memory back between them
// (the driver's AnalysisRunner). The default runs them one after another on one thread, untimed.
#pragma once

#include <functional>

namespace wisp {

struct StepRunner {
  virtual ~StepRunner() = default;
  // Runs the step `what` now.
  virtual void step(const char* what, const std::function<void()>& work) {
    (void)what;
    work();
  }
  // Starts `work` (a few steps of its own) beside the caller's next steps where there is a core for
  // it, else runs it now; the function returned waits for it and rethrows what it threw.
  virtual std::function<void()> beside(std::function<void()> work) {
    work();
    return [] {};
  }
  // The steps before have freed large tables: the memory may go back to the system now.
  virtual void freed() {}
  // Threads one step may share its independent passes out on (near-critical paths, MBM); 1: none.
  virtual unsigned threads() const { return 1; }
};

// The default: every step at once on the caller's thread.
StepRunner& one_after_another();

}  // namespace wisp
