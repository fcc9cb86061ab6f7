// The communication matrix (Vampir's): point-to-point messages and bytes per (sender, receiver)
// rank pair, from the trace's matched messages. Sparse: only pairs that communicate.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp {

struct CommPair {
  Rank from = kNone, to = kNone;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

struct CommMatrix {
  Rank ranks = 0;
  std::vector<CommPair> pairs;  // by sender, then receiver
  std::uint64_t messages = 0, bytes = 0;
};

CommMatrix communication_matrix(const Trace& trace);
// Spread over processes (Trace::share): every process's senders, whole on every process.
CommMatrix communication_matrix(const Trace& trace, ProcessGroup& group);

}  // namespace wisp
