// A point's analyses spread over an MPI job. See analysis_service.hpp. Each round process 0 sends
// every process a request (analyse, with the options' parts and MBM call paths and the archive to
// read, or stop); the trace's shares are read or handed out, the analysis runs spread, and the wait
// states come back to process 0.
#include "wisp/driver/analysis_service.hpp"

#include <spdlog/spdlog.h>

#include "wisp/driver/analysis_runner.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/trace_handout.hpp"

namespace wisp::driver {

namespace {

enum class Request : std::uint8_t { Stop, Analyze };

std::string request(Request kind, const TraceAnalysisOptions& options = {}, const std::filesystem::path& archive = {}) {
  Packer out;
  out.put(kind).put(options.parts).put_vector(options.mbm_of).put_string(archive.string());
  return out.take();
}

// Collective: process 0's request, on every process.
std::string broadcast(ProcessGroup& group, const std::string& mine) {
  std::vector<std::string> out(static_cast<std::size_t>(group.processes()));
  if (group.process() == 0) out.assign(out.size(), mine);
  return std::move(group.exchange(std::move(out))[0]);
}

// Collective: every rank's wait states on process 0, each from the process of its waiting rank, in
// process order (so each rank's in the order the whole trace's search gives them: what the
// timelines sum per event).
void gather_waits(const Trace& share, WaitStates& waits, ProcessGroup& group) {
  std::vector<WaitState> mine;
  for (const WaitState& w : waits.instances)
    if (share.holds(w.rank)) mine.push_back(w);
  Packer out;
  out.put_vector(mine);
  std::vector<std::string> outgoing(static_cast<std::size_t>(group.processes()));
  outgoing[0] = out.take();
  const std::vector<std::string> incoming = group.exchange(std::move(outgoing));
  waits.instances.clear();
  if (group.process() != 0) return;
  for (const std::string& packet : incoming) {
    Unpacker in(packet);
    for (const WaitState& w : in.get_vector<WaitState>()) waits.instances.push_back(w);
  }
}

}  // namespace

TraceAnalysis AnalysisService::analyze_share(const Trace* whole, const std::string& text) {
  Unpacker in(text);
  in.get<Request>();
  TraceAnalysisOptions options;
  options.parts = in.get<AnalysisParts>();
  options.mbm_of = in.get_vector<CallpathId>();
  const std::string archive = in.get_string();
  ReadOptions read;
  read.group = &group_;
  read.threads = 1;
  const Trace share = archive.empty() ? hand_out(whole, group_) : read_otf2(archive, read);
  spdlog::debug("wisp run, process {}: analyses ranks {}-{} ({} events)", group_.process(), share.share->first,
                share.share->last - 1, share.event_count());
  AnalysisRunner one_core(1, &group_);  // one process per core
  TraceAnalysis a = analyze_trace(share, options, group_, one_core);
  gather_waits(share, a.wait_paths.waits, group_);
  return a;
}

TraceAnalysis AnalysisService::analyze(const Trace& trace, const TraceAnalysisOptions& options,
                                       const std::filesystem::path& archive) {
  if (!clamp_noted_ && static_cast<std::uint32_t>(group_.processes()) > trace.rank_count()) {
    spdlog::info("wisp run: {} processes for a trace of {} ranks: {} of them have no rank to analyse",
                 group_.processes(), trace.rank_count(),
                 static_cast<std::uint32_t>(group_.processes()) - trace.rank_count());
    clamp_noted_ = true;
  }
  return analyze_share(&trace, broadcast(group_, request(Request::Analyze, options, archive)));
}

void AnalysisService::release() { broadcast(group_, request(Request::Stop)); }

void AnalysisService::serve() {
  while (true) {
    const std::string text = broadcast(group_, {});
    if (Unpacker(text).get<Request>() == Request::Stop) return;
    analyze_share(nullptr, text);
  }
}

}  // namespace wisp::driver
