// Which MPI call every communication record happened in. Wait states compare the Enter and
// Leave times of the calls on both sides of a message or collective (Scalasca's definitions),
// so the analyses look these calls up once, in one forward pass per rank.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

struct RankCalls {
  std::vector<std::uint32_t> p2p_event;    // per p2p record: call of its Send/Isend/Recv/Irecv event
  std::vector<std::uint32_t> p2p_request;  // per p2p record: call of its IsendComplete/IrecvRequest
  std::vector<std::uint32_t> collective;   // per collective record: call of its begin event
  std::uint32_t init = kNone;              // the first MPI_Init / MPI_Init_thread call
  std::uint32_t finalize = kNone;          // the first MPI_Finalize call
};

struct CallIndex {
  std::vector<RankCalls> ranks;  // values index Trace::ranks[r].mpi_calls; kNone: not in a call
};

CallIndex index_mpi_calls(const Trace& trace);

// Shortcuts for one call (index into trace.ranks[r].mpi_calls).
struct CallTimes {
  double enter = 0;
  double leave = 0;
  CallpathId callpath = kNone;
  MpiFunction function = MpiFunction::None;
};
CallTimes call_times(const Trace& trace, Rank r, std::uint32_t call);

bool is_blocking_send(MpiFunction f);  // MPI_Send, Bsend, Ssend, Rsend, Sendrecv(_replace)
bool is_wait_single(MpiFunction f);    // MPI_Wait
bool is_wait_multi(MpiFunction f);     // MPI_Waitall, Waitany, Waitsome
bool is_test(MpiFunction f);           // MPI_Test, Testall, Testany, Testsome

}  // namespace wisp
