// Events of one rank, mirroring OTF2's single-threaded MPI event records one-to-one.
// An Event is 16 bytes: its time, its kind and one reference whose meaning depends on the kind.
// Message and collective payloads live in side tables (P2P, CollectiveRecord) so that the many
// Enter/Leave events stay small; see src/trace/README.md.
#pragma once

#include <cassert>
#include <cstdint>
#include <string_view>

#include "wisp/trace/ids.hpp"

namespace wisp {

enum class EventKind : std::uint8_t {
  ProgramBegin,         // ref: unused (0)
  ProgramEnd,           // ref: unused (0)
  Enter,                // ref: CallpathId entered
  Leave,                // ref: CallpathId left
  MpiSend,              // ref: P2P record (blocking send)
  MpiIsend,             // ref: P2P record (non-blocking send; request id in the record)
  MpiIsendComplete,     // ref: P2P record of the Isend it completes
  MpiIrecvRequest,      // ref: P2P record of the Irecv it posts (peer filled in by MpiIrecv)
  MpiIrecv,             // ref: P2P record (completion of a non-blocking receive)
  MpiRecv,              // ref: P2P record (blocking receive)
  MpiRequestTest,       // ref: P2P record of the tested request
  MpiRequestCancelled,  // ref: P2P record of the cancelled request
  MpiCollectiveBegin,   // ref: CollectiveRecord
  MpiCollectiveEnd,     // ref: CollectiveRecord
  CommCreate,           // ref: CommId created
  CommDestroy,          // ref: CommId destroyed
};
inline constexpr int kEventKindCount = 16;

std::string_view to_string(EventKind kind);

constexpr bool is_p2p_event(EventKind k) { return k >= EventKind::MpiSend && k <= EventKind::MpiRequestCancelled; }
constexpr bool is_collective_event(EventKind k) {
  return k == EventKind::MpiCollectiveBegin || k == EventKind::MpiCollectiveEnd;
}

struct Event {
  double time = 0;        // seconds since the trace's start (Clock::global_offset)
  std::uint32_t ref = 0;  // what it refers to, by kind: read it through the accessors below
  EventKind kind = EventKind::Enter;

  // The reference as what the kind says it is, as OTF2's records carry typed fields (checked in
  // debug builds): the call path entered or left; the rank's P2P record (RankTrace::p2p); the
  // rank's CollectiveRecord (RankTrace::collectives); the communicator created or destroyed.
  CallpathId callpath() const {
    assert(kind == EventKind::Enter || kind == EventKind::Leave);
    return ref;
  }
  std::uint32_t p2p() const {
    assert(is_p2p_event(kind));
    return ref;
  }
  std::uint32_t collective() const {
    assert(is_collective_event(kind));
    return ref;
  }
  CommId comm() const {
    assert(kind == EventKind::CommCreate || kind == EventKind::CommDestroy);
    return ref;
  }
};
static_assert(sizeof(Event) == 16, "Event must stay 16 bytes (memory budget)");

// One side of a point-to-point message: the send on the sender, the receive on the receiver.
// Request-only events (IsendComplete, IrecvRequest, RequestTest, RequestCancelled) point here too.
struct P2P {
  std::uint64_t bytes = 0;
  std::uint64_t request = 0;  // OTF2 request id (non-blocking only)
  Rank peer = kNone;          // global rank of the other side (kNone: not yet known)
  CommId comm = kNone;
  std::int32_t tag = 0;
  EventIndex event = kNone;             // MpiSend/MpiIsend/MpiRecv/MpiIrecv event
  EventIndex request_event = kNone;     // MpiIsendComplete (send) or MpiIrecvRequest (receive)
  std::uint32_t message = kNone;        // index into Trace::messages (derived)
  EventKind kind = EventKind::MpiSend;  // MpiSend, MpiIsend, MpiRecv or MpiIrecv (side of the message)
  bool is_send() const { return kind == EventKind::MpiSend || kind == EventKind::MpiIsend; }
};

// Same values as OTF2_CollectiveOp.
enum class CollectiveOp : std::uint8_t {
  Barrier,
  Bcast,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  Alltoallw,
  Allreduce,
  Reduce,
  ReduceScatter,
  Scan,
  Exscan,
  ReduceScatterBlock,
  CreateHandle,
  DestroyHandle,
  Allocate,
  Deallocate,
  CreateHandleAndAllocate,
  DestroyHandleAndDeallocate,
};
inline constexpr int kCollectiveOpCount = 23;

std::string_view to_string(CollectiveOp op);

// Which synchronisation pattern a collective operation follows (Scalasca's classification).
enum class CollectiveClass : std::uint8_t {
  Barrier,     // MPI_Barrier
  NxN,         // all-to-all data dependence: Allreduce, Allgather(v), Alltoall(v,w), Reduce_scatter
  OneToN,      // root sends: Bcast, Scatter(v)
  NToOne,      // root receives: Reduce, Gather(v)
  Prefix,      // Scan, Exscan (rank i depends on ranks < i)
  Management,  // CREATE/DESTROY_HANDLE, (de)allocation: bookkeeping around comm creation, Init, ...
};
CollectiveClass classify(CollectiveOp op);

// log2 size class of a message: 0 for 0 bytes, k for [2^(k-1), 2^k) bytes. Minimum-based
// analyses (calibration, wait estimate; paper 002) group MPI calls by it.
inline std::uint32_t size_class(std::uint64_t bytes) {
  std::uint32_t k = 0;
  for (; bytes > 0; bytes >>= 1) ++k;
  return k;
}

// ⌈log₂ n⌉ (0 for n ≤ 1): the rounds of a tree or doubling algorithm over n ranks.
inline std::uint32_t ceil_log2(std::uint32_t n) {
  std::uint32_t k = 0;
  while ((1u << k) < n) ++k;
  return k;
}

// Score-P's convention for the bytes a rank records in MpiCollectiveEnd, given the operation's
// per-rank buffer size b on a communicator of n ranks (non-in-place):
//   Barrier, handles: 0/0;   N×N (Allreduce, Alltoall, Allgather, ...): sent = received = n·b;
//   1→N (Bcast, Scatter): root sent n·b, received b; others sent 0, received b;
//   N→1 (Reduce, Gather): all sent b; root received n·b, others 0;   Scan/Exscan: b/b.
struct CollectiveBytes {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};
CollectiveBytes collective_bytes(CollectiveOp op, std::uint64_t buffer, std::uint32_t comm_size, bool is_root);
// The inverse: the per-rank buffer size b of a recorded operation.
std::uint64_t collective_buffer(CollectiveOp op, std::uint64_t sent, std::uint64_t received, std::uint32_t comm_size,
                                bool is_root);

struct CollectiveRecord {
  std::uint64_t sent = 0;      // bytes sent by this rank
  std::uint64_t received = 0;  // bytes received by this rank
  CommId comm = kNone;
  Rank root = kNone;               // global rank of the root, kNone if the operation has none
  EventIndex begin = kNone;        // MpiCollectiveBegin event
  EventIndex end = kNone;          // MpiCollectiveEnd event
  std::uint32_t instance = kNone;  // index into Trace::collectives (derived)
  CollectiveOp op = CollectiveOp::Barrier;
};

}  // namespace wisp
