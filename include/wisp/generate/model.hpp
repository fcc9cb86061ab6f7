// The analytic timing model behind every synthetic trace. A generator writes each rank's program
// (user regions, compute, MPI calls); Model::run() assigns every event its time by the rules
// below and returns the Trace, so tests know every wait state, critical path and runtime exactly.
//
// Rules (L latency, B bandwidth, o per-call overhead, E eager limit; t = time the call is entered):
//   every MPI call:   its communication starts at ready = t + o;
//   transfer(s)     = L + s / B;
//   eager send (s <= E), blocking or not: leaves at ready; the message arrives at ready + transfer(s);
//   rendezvous send (s > E): the transfer starts at max(send ready, receive posted) and ends
//                      transfer(s) later; a blocking send leaves then, an Isend completes then;
//   receive posted at its ready time; a blocking receive leaves at max(ready, arrival or end);
//   Isend / Irecv leave at ready; Waitall leaves at max(ready, completion of its requests);
//   collectives (C = ceil(log2 n) * transfer(b), b the per-rank buffer, n the communicator size):
//     Barrier, N×N, comm management: every member leaves at max(member ready) + C;
//     1→N (Bcast, Scatter):  root leaves at ready + C, others at max(own ready, root ready) + C;
//     N→1 (Reduce, Gather):  root leaves at max(member ready) + C, others at own ready + C;
//     Scan/Exscan:           member i leaves at max(ready of members 0..i) + C;
//   MPI_Init: every rank leaves at max(ready) + init_time;  MPI_Finalize: like a Barrier.
// Every rank runs `main` from its launch time: Enter(main), MPI_Init, the program, MPI_Finalize,
// Leave(main). Event layout follows Score-P 8 (MpiCollectiveBegin/End(CREATE_HANDLE) inside
// MPI_Init, DESTROY_HANDLE inside MPI_Finalize, CommCreate inside MPI_Comm_split). Times are
// rounded to the clock's resolution (1 ns) when the trace is built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp::gen {

struct ModelParams {
  double latency = 1e-6;              // L [s]
  double bandwidth = 1e10;            // B [bytes/s]
  double overhead = 1e-6;             // o [s]
  std::uint64_t eager_limit = 65536;  // E [bytes]
  double init_time = 1e-3;            // MPI_Init cost after the last rank is ready [s]

  double transfer(std::uint64_t bytes) const { return latency + static_cast<double>(bytes) / bandwidth; }
  // C of the rules above.
  double collective(std::uint32_t comm_size, std::uint64_t buffer) const;
};

struct Request {
  std::uint32_t id = 0;
};

class Model;

// The program of one rank, appended in program order.
class RankProgram {
 public:
  void enter(RegionId region);
  void leave(RegionId region);
  void compute(double seconds);
  void work(RegionId region, double seconds);  // enter + compute + leave

  void send(Rank to, std::uint64_t bytes, std::int32_t tag, CommId comm);
  void recv(Rank from, std::uint64_t bytes, std::int32_t tag, CommId comm);
  Request isend(Rank to, std::uint64_t bytes, std::int32_t tag, CommId comm);
  Request irecv(Rank from, std::uint64_t bytes, std::int32_t tag, CommId comm);
  void waitall(const std::vector<Request>& requests);
  // Any collective MPI function (MPI_Barrier, MPI_Allreduce, MPI_Bcast, ...): `buffer` is the
  // per-rank buffer size, `root` a global rank (1→N, N→1 only).
  void collective(MpiFunction function, CommId comm, std::uint64_t buffer = 0, Rank root = kNone);
  void barrier(CommId comm) { collective(MpiFunction::Barrier, comm); }
  void allreduce(CommId comm, std::uint64_t buffer) { collective(MpiFunction::Allreduce, comm, buffer); }
  // MPI_Comm_split creating `created` (every member of `parent` must call it).
  void comm_split(CommId parent, CommId created);

 private:
  friend class Model;
  friend struct Engine;
  enum class OpKind : std::uint8_t {
    Enter,
    Leave,
    Compute,
    Send,
    Recv,
    Isend,
    Irecv,
    Waitall,
    Collective,
    Init,
    Finalize,
    Split
  };
  struct Op {
    OpKind kind;
    CollectiveOp coll = CollectiveOp::Barrier;
    std::uint32_t region = kNone;  // user region, or the MPI function's region
    double seconds = 0;
    Rank peer = kNone;    // p2p peer or collective root (global)
    CommId comm = kNone;  // also: created comm of a split
    std::int32_t tag = 0;
    std::uint64_t bytes = 0;
    std::uint32_t first = 0;  // request id (Isend/Irecv) or first index into wait_lists_
    std::uint32_t count = 0;  // Waitall: number of requests
  };
  explicit RankProgram(Model* model) : model_(model) {}
  RegionId mpi_region(std::string_view name);

  Model* model_;
  std::vector<Op> ops_;
  std::vector<std::uint32_t> wait_lists_;
  std::uint32_t requests_ = 0;
};

class Model {
 public:
  explicit Model(std::uint32_t ranks, std::string program_name = "generated");
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  RegionId region(const std::string& name);  // interned by name (MPI_* names get MPI kinds)
  CommId world() const { return defs_.world; }
  CommId add_comm(std::string name, std::vector<Rank> members);
  RankProgram& rank(Rank r) { return programs_[r]; }
  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(programs_.size()); }
  void set_launch(Rank r, double seconds) { launch_[r] = seconds; }

  // Executes the model. Throws wisp::Error if the programs deadlock (a generator bug).
  Trace run(const ModelParams& params);

 private:
  friend class RankProgram;
  friend struct Engine;
  Definitions defs_;
  std::vector<RankProgram> programs_;
  std::vector<double> launch_;
};

}  // namespace wisp::gen
