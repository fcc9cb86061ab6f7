// A rank's events read as an MPI program for another simulator: its computation, local costs and
// MPI operations in program order, read call by call as the replay reads them (call_shape.hpp).
// The exporters (smpi_ti_export.cpp, goal_export.cpp) write this program in their formats.
#pragma once

#include <cstdint>
#include <vector>

#include "call_prices.hpp"
#include "wisp/replay/export.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::replay_impl {

// One operation a call posts, in event order: a point-to-point side (a record of the rank's p2p
// table, matched) or a collective (a record of its collectives table, of a complete instance).
struct ProgramOperation {
  enum class Kind : std::uint8_t { Send, Receive, Collective };
  Kind kind = Kind::Send;
  std::uint32_t record = 0;
  bool blocking = false;     // a send or receive the call itself completes (not a request)
  bool synchronous = false;  // a send of MPI_Ssend/MPI_Issend (rendezvous in the replay at any size)
};

// One MPI call that communicates (calls without communication are computation).
struct ProgramCall {
  bool init = false, finalize = false;
  double overhead = 0;   // the platform's per-call overhead, before communication [s]
  double init_wait = 0;  // MPI_Init: until the last rank is ready, plus the Init cost [s]
  double cost = 0;       // the platform's typical cost of the call, after its communication [s]
  std::vector<ProgramOperation> operations;
  std::vector<std::uint32_t> completed;  // p2p records of the requests it completes (Wait*/Test*)
  bool finalize_barrier = false;         // MPI_Finalize without records: a barrier on the world
};

class ProgramWriter {
 public:
  virtual void compute(double seconds) = 0;  // traced computation (also MPI calls without communication)
  virtual void idle(double seconds) = 0;     // local time hosts do not scale (the launch offset)
  virtual void call(const ProgramCall& call) = 0;

 protected:
  ~ProgramWriter() = default;
};

// Per-call costs the program carries, as a model-only replay has them: overheads by region, each
// rank's MPI_Init wait and the typical call costs of a calibrated platform (by rank and call).
// An export charges a per-message call's send and receive overheads both before the call.
struct ProgramCosts : CallPrices {
  std::vector<double> init_wait;  // by rank
  std::vector<std::vector<double>> typical;
};
ProgramCosts program_costs(const Trace& trace, const MpiCosts& mpi, const std::vector<std::string>& rank_hosts);

// The replay's algorithm for `op`; the analytic one (no messages to write) becomes the family's
// default and is counted in `left`.
CollectiveAlgorithm schedule_algorithm(const CollectiveAlgorithms& algorithms, CollectiveOp op, ExportLeftOut& left);

// The bytes the replay simulates for a message of `bytes` to rank `receiver` (size factors).
std::uint64_t wire_bytes(const ExportPlatform& platform, Rank receiver, std::uint64_t bytes);

// Walks rank `rank`'s events into `out`; counts in `left` what the program cannot carry.
void walk_program(const Trace& trace, Rank rank, const ProgramCosts& costs, ProgramWriter& out, ExportLeftOut& left);

// What a trace holds beyond one MPI program per rank (threads, streams, RMA), counted into `left`.
void count_beyond_mpi(const Trace& trace, ExportLeftOut& left);

}  // namespace wisp::replay_impl
