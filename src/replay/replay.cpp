// replay(): runs the simulation in a forked child (SimGrid allows one engine per process) and
// reads its answer back through a pipe (simulation_answer.hpp). The parent rebuilds the
// simulated trace with TraceBuilder (retimed()).
#include "wisp/replay/replay.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <optional>
#include <string>

#include "simulation_answer.hpp"
#include "wisp/process/child_process.hpp"
#include "wisp/replay/retime.hpp"

namespace wisp {

namespace {

using replay_impl::kLongestSimulation;

void check(const Platform& p, const ReplayOptions& o, const Trace& trace) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(p.speed_factor) || !positive(p.bandwidth_factor) || !std::isfinite(p.latency_factor) ||
      p.latency_factor < 0)
    throw Error("replay: speed and bandwidth factors must be positive, the latency factor not negative");
  if (p.file.empty()) {
    if (!positive(p.speed) || !positive(p.bandwidth) || !(p.latency >= 0) || p.cores == 0)
      throw Error(
          "replay: the generated platform needs a positive speed, bandwidth and core count "
          "and a non-negative latency");
    if (p.topology != Topology::Crossbar && p.topology_parameters.empty())
      throw Error(fmt::format("replay: a {} platform needs topology parameters", to_string(p.topology)));
  }
  if (p.reference_speed < 0) throw Error("replay: the reference speed must not be negative");
  if (o.init_time && !(*o.init_time >= 0)) throw Error("replay: the MPI_Init time must not be negative");
  auto seconds = [](double v) { return std::isfinite(v) && v >= 0 && v <= kLongestSimulation; };
  if (!seconds(p.mpi.default_overhead))
    throw Error(fmt::format("replay: the MPI overhead {} s is not between 0 and {:g} s", p.mpi.default_overhead,
                            kLongestSimulation));
  for (const auto& [side, v] : {std::pair{"send", p.mpi.send_overhead}, std::pair{"receive", p.mpi.receive_overhead}})
    if (v && !seconds(*v))
      throw Error(fmt::format("replay: the per-message {} overhead {} s is not between 0 and {:g} s", side, *v,
                              kLongestSimulation));
  for (const auto& [name, v] : p.mpi.overheads)
    if (!seconds(v))
      throw Error(
          fmt::format("replay: the overhead of {} ({} s) is not between 0 and {:g} s", name, v, kLongestSimulation));
  if (o.anchor && o.residuals)
    throw Error("replay: an anchored replay derives residuals; it cannot also be given them");
  if (trace.defs.comms.size() >= (1u << 20) || trace.rank_count() >= (1u << 22))
    throw Error("replay: at most 4194303 ranks and 1048575 communicators are supported");
}

// The result without its trace (built from `answer.times` by the caller, unless only the runtime
// was asked for): statistics, residuals, and each rank's end at the trace's clock resolution, as
// retimed() puts its last event.
ReplayResult assemble_result(const StartedReplay& started, replay_impl::SimulatedTimes& answer) {
  const Trace& trace = *started.trace;
  const ReplayOptions& options = started.options;
  ReplayResult result;
  result.statistics = answer.stats;
  if (options.anchor && !options.zero_communication) {
    CallResiduals residuals;
    residuals.by_rank = std::move(answer.residuals);
    attribute_residuals(trace, answer.calls, residuals);
    result.residuals = std::make_shared<const CallResiduals>(std::move(residuals));
  }
  result.rank_end.assign(trace.rank_count(), 0.0);
  for (Rank r = 0; r < trace.rank_count() && r < answer.times.size(); ++r) {
    if (!answer.times[r].empty()) result.rank_end[r] = trace.defs.clock.snap(answer.times[r].back());
    result.runtime = std::max(result.runtime, result.rank_end[r]);
  }
  return result;
}

// The child's answer, decoded as it arrives; a child killed by a signal is reported as such (its
// answer is then cut short).
replay_impl::SimulatedTimes answer_of(const StartedReplay& started) {
  std::optional<replay_impl::SimulatedTimes> answer;
  std::exception_ptr failure;
  try {
    answer = replay_impl::read_answer(started.child.fd);
  } catch (...) {
    failure = std::current_exception();
  }
  const ChildExit exit = close_answering_child(started.child);
  if (exit.killed)
    throw Error(
        fmt::format("replay: the simulation process was killed by signal {} ({}); SimGrid's "
                    "messages above say why",
                    exit.signal, strsignal(exit.signal)));
  if (failure) std::rethrow_exception(failure);
  return std::move(*answer);
}

}  // namespace

StartedReplay start_replay(const Trace& trace, const Platform& platform, const ReplayOptions& options,
                           ReplayAnswer answer, const Trace* unread) {
  check(platform, options, trace);
  spdlog::default_logger()->flush();
  StartedReplay started{&trace, options, {}, answer};
  const bool runtime_only = answer == ReplayAnswer::Runtime;
  started.child = start_answering_child("replay", [&](int fd) {
    if (unread && unread != &trace) forget_pages(*unread);
    const int code = replay_impl::simulate_and_answer(fd, trace, platform, options, runtime_only);
    spdlog::default_logger()->flush();
    return code;
  });
  return started;
}

ReplayResult finish_replay(const StartedReplay& started) {
  std::vector<std::vector<double>> times;
  ReplayResult result = finish_replay(started, times);
  if (started.answer == ReplayAnswer::Trace) result.trace = retimed(*started.trace, std::move(times));
  return result;
}

ReplayResult finish_replay(const StartedReplay& started, std::vector<std::vector<double>>& times) {
  replay_impl::SimulatedTimes answer = answer_of(started);
  ReplayResult result = assemble_result(started, answer);
  times = std::move(answer.times);
  return result;
}

double finish_replay_runtime(const StartedReplay& started) {
  const replay_impl::SimulatedTimes answer = answer_of(started);
  double runtime = 0;
  for (const auto& times : answer.times)
    if (!times.empty()) runtime = std::max(runtime, times.back());
  return runtime;
}

void abandon_replay(const StartedReplay& started) { abandon_child(started.child); }

ReplayResult replay(const Trace& trace, const Platform& platform, const ReplayOptions& options) {
  return finish_replay(start_replay(trace, platform, options));
}

}  // namespace wisp
