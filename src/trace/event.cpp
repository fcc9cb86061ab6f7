// Names and classification of event kinds and collective operations.
#include "wisp/trace/event.hpp"

#include <algorithm>
#include <array>

namespace wisp {

std::string_view to_string(EventKind kind) {
  static constexpr std::array<std::string_view, kEventKindCount> names{
      "ProgramBegin",       "ProgramEnd",       "Enter",      "Leave",      "MpiSend",        "MpiIsend",
      "MpiIsendComplete",   "MpiIrecvRequest",  "MpiIrecv",   "MpiRecv",    "MpiRequestTest", "MpiRequestCancelled",
      "MpiCollectiveBegin", "MpiCollectiveEnd", "CommCreate", "CommDestroy"};
  return names[static_cast<std::size_t>(kind)];
}

std::string_view to_string(CollectiveOp op) {
  static constexpr std::array<std::string_view, kCollectiveOpCount> names{"BARRIER",
                                                                          "BCAST",
                                                                          "GATHER",
                                                                          "GATHERV",
                                                                          "SCATTER",
                                                                          "SCATTERV",
                                                                          "ALLGATHER",
                                                                          "ALLGATHERV",
                                                                          "ALLTOALL",
                                                                          "ALLTOALLV",
                                                                          "ALLTOALLW",
                                                                          "ALLREDUCE",
                                                                          "REDUCE",
                                                                          "REDUCE_SCATTER",
                                                                          "SCAN",
                                                                          "EXSCAN",
                                                                          "REDUCE_SCATTER_BLOCK",
                                                                          "CREATE_HANDLE",
                                                                          "DESTROY_HANDLE",
                                                                          "ALLOCATE",
                                                                          "DEALLOCATE",
                                                                          "CREATE_HANDLE_AND_ALLOCATE",
                                                                          "DESTROY_HANDLE_AND_DEALLOCATE"};
  return names[static_cast<std::size_t>(op)];
}

CollectiveClass classify(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Barrier:
      return CollectiveClass::Barrier;
    case CollectiveOp::Bcast:
    case CollectiveOp::Scatter:
    case CollectiveOp::Scatterv:
      return CollectiveClass::OneToN;
    case CollectiveOp::Reduce:
    case CollectiveOp::Gather:
    case CollectiveOp::Gatherv:
      return CollectiveClass::NToOne;
    case CollectiveOp::Allgather:
    case CollectiveOp::Allgatherv:
    case CollectiveOp::Alltoall:
    case CollectiveOp::Alltoallv:
    case CollectiveOp::Alltoallw:
    case CollectiveOp::Allreduce:
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::ReduceScatterBlock:
      return CollectiveClass::NxN;
    case CollectiveOp::Scan:
    case CollectiveOp::Exscan:
      return CollectiveClass::Prefix;
    default:
      return CollectiveClass::Management;
  }
}

CollectiveBytes collective_bytes(CollectiveOp op, std::uint64_t b, std::uint32_t n, bool root) {
  switch (classify(op)) {
    case CollectiveClass::Barrier:
    case CollectiveClass::Management:
      return {0, 0};
    case CollectiveClass::NxN:
      return {n * b, n * b};
    case CollectiveClass::OneToN:
      return root ? CollectiveBytes{n * b, b} : CollectiveBytes{0, b};
    case CollectiveClass::NToOne:
      return root ? CollectiveBytes{b, n * b} : CollectiveBytes{b, 0};
    case CollectiveClass::Prefix:
      return {b, b};
  }
  return {0, 0};
}

std::uint64_t collective_buffer(CollectiveOp op, std::uint64_t sent, std::uint64_t received, std::uint32_t n,
                                bool root) {
  const std::uint64_t size = n == 0 ? 1 : n;
  switch (classify(op)) {
    case CollectiveClass::Barrier:
    case CollectiveClass::Management:
      return 0;
    case CollectiveClass::NxN:
      return std::max(sent, received) / size;
    case CollectiveClass::OneToN:
      return root ? sent / size : received;
    case CollectiveClass::NToOne:
      return root ? received / size : sent;
    case CollectiveClass::Prefix:
      return std::max(sent, received);
  }
  return 0;
}

}  // namespace wisp
