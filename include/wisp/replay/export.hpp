// Traces for other simulators: SimGrid's time-independent traces (replayed by SMPI) and GOAL
// schedules (simulated by LogGOPSim/ATLAHS), written from a (scenario) trace with the replay's
// reading of MPI calls and, for GOAL, the replay's collective algorithms.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// One export asked for (`--export FORMAT PATH` of wisp simulate, a scenario's `export:` key).
struct ExportRequest {
  std::string format;  // "smpi-ti" or "goal"
  std::filesystem::path path;
  bool collectives_as_messages = false;  // smpi-ti: every collective as wisp's messages
  bool picoseconds = false;              // goal: times in ps
};

// The platform figures an export states (from the replay's platform, see PlatformFacts).
struct ExportPlatform {
  double reference_speed = 1e9;         // flop/s one traced second represents
  double latency = 0;                   // [s] of a route between two hosts (ranks 0 and 1)
  double bandwidth = 0;                 // [bytes/s] of that route's bottleneck
  MpiCosts mpi;                         // per-call overheads, eager threshold
  std::filesystem::path platform_file;  // the SimGrid XML the export is meant for ("" if generated)
  std::string platform_xml;             // a generated platform's XML (written beside an SMPI export)
  std::vector<std::string> rank_hosts;  // the host of every rank (SMPI's hostfile)
  // A calibrated platform's size factors (Platform::size_factors): a message is written with the
  // bytes the replay simulates for it (its size × the receiving host's factor of its class).
  std::map<std::string, std::map<std::uint32_t, double>> size_factors;
};

struct ExportOptions {
  CollectiveAlgorithms algorithms;       // the replay's (analytic: the family's default is written)
  bool collectives_as_messages = false;  // SMPI TI: every collective as wisp's messages
  bool picoseconds = false;              // GOAL: times in ps instead of ns (G below 1 ns/byte)
};

// What an export could not express, counted; `names()` lists the non-zero ones in words.
struct ExportLeftOut {
  std::uint64_t unmatched_messages = 0;
  std::uint64_t incomplete_collectives = 0;
  std::uint64_t cancelled_requests = 0;
  std::uint64_t thread_locations = 0, thread_events = 0;
  std::uint64_t stream_locations = 0, stream_events = 0;
  std::uint64_t rma_records = 0;
  std::uint64_t analytic_collectives = 0;  // written with the family's default algorithm
  std::uint64_t synchronous_sends = 0;     // eager-sized MPI_Ssend/Issend written as standard sends
  std::vector<std::string> names() const;
};

struct ExportResult {
  std::string format;  // "smpi-ti", "goal"
  std::filesystem::path path;
  std::uint64_t operations = 0;    // lines/operations written
  std::uint64_t dependencies = 0;  // GOAL: requires lines
  ExportLeftOut left_out;
};

// SMPI time-independent trace: DIR/rank-<r>.txt, DIR/index.txt (one file per rank, in rank order)
// and DIR/smpirun.sh (the command and --cfg settings that reproduce wisp's model). Atomic.
ExportResult export_smpi_ti(const Trace& trace, const ExportPlatform& platform, const ExportOptions& options,
                            const std::filesystem::path& dir, bool force);

// GOAL schedule in LogGOPSim's text grammar, LogGOP parameters in a header comment. Atomic.
ExportResult export_goal(const Trace& trace, const ExportPlatform& platform, const ExportOptions& options,
                         const std::filesystem::path& file);

}  // namespace wisp
