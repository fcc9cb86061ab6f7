// Hand-built traces for the analysis tests: every region and MPI call is written out with
// explicit Enter/Leave times in the Score-P event layout, so that the expected wait states,
// critical path and delay costs can be computed by hand from the numbers in the test.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "wisp/analysis/metric_table.hpp"
#include "wisp/trace/builder.hpp"

namespace wisp::test {

class HandTrace {
 public:
  explicit HandTrace(std::uint32_t ranks);

  CommId world() const { return world_; }
  CommId comm(std::vector<Rank> members);  // a sub-communicator

  void enter(Rank r, double t, const std::string& region);
  void leave(Rank r, double t, const std::string& region);
  void work(Rank r, double from, double to, const std::string& region);

  // Blocking point-to-point: the send event at Enter, the receive event at Leave.
  void send(Rank r, double enter, double leave, Rank to, int tag = 0, std::uint64_t bytes = 8);
  void recv(Rank r, double enter, double leave, Rank from, int tag = 0, std::uint64_t bytes = 8);
  // MPI_Ssend (rendezvous at any size) and MPI_Sendrecv (its send at Enter, its receive at Leave).
  void ssend(Rank r, double enter, double leave, Rank to, int tag = 0, std::uint64_t bytes = 8);
  void sendrecv(Rank r, double enter, double leave, Rank to, Rank from, int tag = 0, std::uint64_t bytes = 8);
  // Non-blocking: returns the request id to complete with wait().
  std::uint64_t isend(Rank r, double enter, double leave, Rank to, int tag = 0, std::uint64_t bytes = 8);
  std::uint64_t irecv(Rank r, double enter, double leave, Rank from, int tag = 0, std::uint64_t bytes = 8);
  // MPI_Wait (one request) or MPI_Waitall; completion records at Leave.
  void wait(Rank r, double enter, double leave, const std::vector<std::uint64_t>& requests);

  // Any collective by its MPI function name ("MPI_Barrier", "MPI_Allreduce", ...): Begin at
  // Enter, End at Leave. `root` is a global rank (1→N, N→1 only).
  void collective(Rank r, double enter, double leave, const std::string& function, CommId comm, Rank root = kNone,
                  std::uint64_t bytes = 8);
  void init(Rank r, double enter, double leave);      // MPI_Init with Score-P's CREATE_HANDLE
  void finalize(Rank r, double enter, double leave);  // MPI_Finalize with DESTROY_HANDLE

  Trace finish() { return builder_->finish(); }

 private:
  struct Pending {
    bool send;
    Rank peer;
    int tag;
    std::uint64_t bytes;
  };
  RegionId region(const std::string& name);
  RankBuilder& b(Rank r) { return builder_->rank(r); }

  Definitions defs_;
  CommId world_ = kNone;
  std::unique_ptr<TraceBuilder> builder_;
  std::vector<std::map<std::uint64_t, Pending>> pending_;
  std::uint64_t next_request_ = 1;
};

// Sum of `metric` in the table for the call path named `cp` (on rank r, or all ranks).
double metric_of(const Trace& t, const MetricTable& table, const char* metric, const std::string& cp, Rank r = kAny);

// Rank 0: computes 0-1, MPI_Comm_rank 1-2, computes 2-4, MPI_Send (8 bytes) 4-4.5, computes to 6.
// Rank 1: computes 0-1, MPI_Recv 1-5 (the message's send starts at 4), computes to 6.
Trace pop_two_rank_trace();

// Generator instances several tests share: a 3x2 wavefront whose ranks 0 and 3 work 50 % more,
// and a 4 + 2 rank MPMD run whose mesh partition is too slow.
Trace small_wavefront_with_slow_border();
Trace small_mpmd_with_slow_mesh();

// The two-rank trace of the critical-path and timeline tests (times by hand):
// rank 0: MPI_Init [0,1], A [1,5], MPI_Send [5,5.1], main [5.1,6], MPI_Finalize [6,8.5], main [8.5,8.6]
// rank 1: MPI_Init [0,1], B [1,2], MPI_Recv [2,5.2] (Late Sender 3), C [5.2,8], MPI_Finalize [8,8.5],
//         main [8.5,8.6]. Rank 0 waits 2 s in MPI_Finalize for rank 1 (8 - 6).
inline Trace two_rank_trace(const std::string& a = "A") {
  HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 1);
  }
  h.work(0, 1, 5, a);
  h.send(0, 5, 5.1, 1);
  h.finalize(0, 6, 8.5);
  h.work(1, 1, 2, "B");
  h.recv(1, 2, 5.2, 0);
  h.work(1, 5.2, 8, "C");
  h.finalize(1, 8, 8.5);
  for (Rank r = 0; r < 2; ++r) h.leave(r, 8.6, "main");
  return h.finish();
}

}  // namespace wisp::test
