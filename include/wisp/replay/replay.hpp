// Replays a Trace on a SimGrid platform: one S4U actor per rank re-executes the rank's
// computation and MPI calls, and every event of the input gets its simulated time. The result is
// a simulated Trace with exactly the input's events (written like any trace with write_otf2).
//
// SimGrid allows one engine per process, so replay() runs the simulation in a forked child process
// and receives the simulated event times through a pipe: it can be called any number of times in
// one program (identity + scenario replays, sweeps). See src/replay/README.md ("What the replay does") for the MPI
// semantics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wisp/error.hpp"
#include "wisp/process/child_process.hpp"
#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/replay/placement.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/replay/residuals.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

struct ReplayOptions {
  // Overrides the platform's eager threshold: messages up to this many bytes are sent eagerly
  // (the sender continues), larger ones (and MPI_Ssend/MPI_Issend) by rendezvous.
  std::optional<std::uint64_t> eager_threshold;
  CollectiveAlgorithms algorithms;
  // Rank r runs on hosts[r % hosts.size()] (names as in the platform, a hostfile's list). Empty:
  // `placement` puts the ranks on the platform's hosts in natural name order ("node-2" before
  // "node-10"), placement.hpp: traced, ranks of one traced node on one host (on hosts of several
  // cores; else cyclic); cyclic, rank r on host r mod H; block, each host's cores filled first.
  std::vector<std::string> hosts;
  Placement placement = Placement::Traced;
  // Every message has zero bytes and no latency: only the synchronisation remains.
  bool zero_communication = false;
  // MPI_Init: every rank leaves at max(ready) + init_time. Unset: each rank's own traced cost
  // (leave − last rank's enter − overhead), so that the identity replay reproduces it.
  std::optional<double> init_time;
  // Wall-clock seconds between progress log lines (spdlog info); 0 disables them.
  double progress_interval = 5;
  // Trace-anchored costs (residuals.hpp). `anchor`: this replay keeps every MPI call's traced end
  // where the model ends it earlier, and returns each call's residual (ReplayResult::residuals);
  // use it for the measured trace (the identity). `residuals`: adds them after each call's
  // communication (replays of a transformed trace with the same calls). Neither: model only.
  // zero_communication drops residuals (no MPI cost at all).
  bool anchor = false;
  std::shared_ptr<const CallResiduals> residuals;
  // Expert: SimGrid settings "KEY:VALUE" (as --cfg=KEY:VALUE) applied after wisp's own, e.g.
  // "contexts/nthreads:2". Some change simulated times (src/replay/README.md, "SimGrid settings").
  std::vector<std::string> simgrid_config;
  // Eager messages and analytic collective rounds on routes no other transfer can slow down
  // travel without a SimGrid activity, taking the time one probe of their route and size took
  // (src/replay/fixed_transfers.hpp): the same simulated times, several times faster. false:
  // every message is an activity (the tests compare both).
  bool fixed_routes = true;
};

struct ReplayStatistics {
  std::uint64_t events = 0;               // events replayed
  std::uint64_t mpi_operations = 0;       // sends, receives, request completions, collectives
  std::uint64_t messages = 0;             // point-to-point messages simulated (incl. inside collectives)
  std::uint64_t without_activity = 0;     // of those, messages on fixed routes (ReplayOptions::fixed_routes)
  std::uint64_t probes = 0;               // transfers simulated to time the fixed routes' sizes
  std::uint64_t bytes_between_hosts = 0;  // bytes of those messages whose sender and receiver are on different hosts
  double simulation_seconds = 0;          // wall-clock time of Engine::run() in the child
  double child_seconds = 0;               // wall-clock time of the whole child (set-up included)
  // Resident memory of the child [KiB] when it started (what it shares with the parent, e.g. the
  // trace) and at its peak: the simulation itself needs about the difference.
  std::uint64_t child_start_rss_kib = 0;
  std::uint64_t child_peak_rss_kib = 0;
  // The platform as the simulation saw it, for exports that state it (export.hpp): flop/s of one
  // traced second, and the route from rank 0's host to rank 1's (else to another host): its
  // summed latency [s] and bottleneck bandwidth [bytes/s] (0 with a single host).
  double reference_speed = 0;
  double route_latency = 0;
  double route_bandwidth = 0;
  std::vector<std::string> rank_hosts;  // the host of every rank
  // Ranks that share a core (more ranks on a host than it has cores): how many, and an example;
  // their computation is slowed by the sharing (placement_warning in trust.hpp says so).
  std::uint32_t ranks_sharing_cores = 0;
  std::string sharing_example;  // "ranks 0 and 2 on node-0 (1 core)"
};

struct ReplayResult {
  Trace trace;                   // the simulated trace
  double runtime = 0;            // simulated end time (last event of any rank) [s]
  std::vector<double> rank_end;  // per rank: time of its last event [s]
  ReplayStatistics statistics;
  std::shared_ptr<const CallResiduals> residuals;  // anchored replays: every call's residual
};

// One rank that cannot go on when the simulation deadlocks.
struct BlockedRank {
  Rank rank = kNone;
  EventIndex event = kNone;  // Enter of the MPI call it waits in
  std::string call;          // "MPI_Recv"
  std::string waiting_for;   // "message from rank 2 tag 5 on MPI_COMM_WORLD (1024 bytes)"
};

// Thrown by replay() when no rank can progress: what() names every blocked rank (the first 16).
class ReplayDeadlock : public Error {
 public:
  ReplayDeadlock(double time, std::vector<BlockedRank> blocked);
  double time() const { return time_; }
  const std::vector<BlockedRank>& blocked() const { return blocked_; }

 private:
  double time_;
  std::vector<BlockedRank> blocked_;
};

// Reads a rank→host mapping file as SMPI's hostfiles: one host name per line, optionally
// "name:N" for N consecutive ranks; '#' starts a comment. Throws wisp::Error naming file and line.
std::vector<std::string> read_hostfile(const std::filesystem::path& file);

// The host index of every rank as a replay on `platform` with `options` places them, known without
// SimGrid for a generated crossbar (hosts node-0, node-1, ... in that order); empty for any other
// platform, or a rank mapping naming another host.
std::vector<std::size_t> planned_hosts(const Trace& trace, const Platform& platform, const ReplayOptions& options);

// Replays `trace` on `platform`. Throws ReplayDeadlock, or wisp::Error for a bad platform or
// options (unknown host, ...) and when the simulation process fails.
ReplayResult replay(const Trace& trace, const Platform& platform, const ReplayOptions& options = {});

// replay() in two halves, so that independent replays run at once, each in its own child (wisp run
// with model-only costs starts its identity and scenario replays together). start_replay() checks
// and forks; finish_replay() waits and builds the result (throws like replay()); abandon_replay()
// kills a started replay that is no longer wanted. `trace` must outlive the started replay.
// A replay started for its runtime only (the gain interval's hypotheses) gets back each rank's end
// and the residuals, not the simulated trace: its child answers in a few bytes and ends at once.
enum class ReplayAnswer { Trace, Runtime };
struct StartedReplay {
  const Trace* trace = nullptr;
  ReplayOptions options;
  AnsweringChild child;
  ReplayAnswer answer = ReplayAnswer::Trace;
};
// `unread`: a trace of the caller the replay does not read, whose pages the child drops at once
// (forget_pages) so that they do not outlive the caller's copy.
StartedReplay start_replay(const Trace& trace, const Platform& platform, const ReplayOptions& options = {},
                           ReplayAnswer answer = ReplayAnswer::Trace, const Trace* unread = nullptr);
// The result; for ReplayAnswer::Runtime its trace is empty (runtime, rank_end, residuals and
// statistics are there).
ReplayResult finish_replay(const StartedReplay& started);
// The same without building the trace yet: the simulated time of every event goes to `times`
// (by rank, by event), from which retimed(*started.trace, std::move(times)) builds it when the
// caller is ready (wisp run starts the scenario's replays and frees the transformed trace first).
ReplayResult finish_replay(const StartedReplay& started, std::vector<std::vector<double>>& times);
// The simulated runtime alone.
double finish_replay_runtime(const StartedReplay& started);
void abandon_replay(const StartedReplay& started);

}  // namespace wisp
