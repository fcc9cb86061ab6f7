// wisp run under mpirun/srun: process 0 replays the point (SimGrid simulates every rank in one
// process) and has each trace analysed by every process: a trace with files (the measured one) each
// reads its share of, as wisp analyze does; a simulated one process 0 hands out (trace_handout.hpp).
// Every process analyses its share (analyze_trace with the group) and process 0 keeps the result,
// with every rank's wait states for the timelines. The others serve until process 0 releases them.
#pragma once

#include <filesystem>

#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp::driver {

class AnalysisService {
 public:
  explicit AnalysisService(ProcessGroup& group) : group_(group) {}

  // Process 0: the analysis of `trace` spread over the group, equal to analyze_trace(trace, options)
  // (the options' `parts` and `mbm_of` cross to the others; the rest is the default). `archive`: the
  // OTF2 anchor `trace` was read from, whose shares the processes read (else process 0 hands them out).
  TraceAnalysis analyze(const Trace& trace, const TraceAnalysisOptions& options,
                        const std::filesystem::path& archive = {});
  // Process 0, once done: the others' serve() returns.
  void release();
  // The other processes: analyse each trace process 0 hands out, until it releases them.
  void serve();

 private:
  TraceAnalysis analyze_share(const Trace* whole, const std::string& request);

  ProcessGroup& group_;
  bool clamp_noted_ = false;  // more processes than ranks, said once
};

}  // namespace wisp::driver
