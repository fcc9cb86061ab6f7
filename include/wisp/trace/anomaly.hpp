// Anomalies found while reading or deriving a trace: counted with their first examples, never
// fatal. Real traces contain them (clock skew, truncated buffers, unmatched messages); wisp
// reports them and handles each as documented in src/trace/README.md ("Anomalies").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wisp/group/pack.hpp"

namespace wisp {

enum class AnomalyKind : std::uint8_t {
  UnmatchedSend,         // a send with no matching receive
  UnmatchedReceive,      // a receive with no matching send
  ReceiveBeforeSend,     // a matched receive completes before its send starts (clock skew?)
  IncompleteCollective,  // a collective instance some communicator members never reached
  MismatchedCollective,  // members of one collective instance record different operations
  NonMonotonicTime,      // a rank's timestamp went backwards (clamped to the previous one)
  UnclosedRegion,        // a rank's events end inside open regions (closed at its last time)
  UnmatchedLeave,        // a Leave that does not match the innermost open region (ignored)
  UnknownRequest,        // a request event for a request id never posted (kept as bare record)
  UnfinishedRequest,     // a non-blocking request never completed or cancelled
  // Hybrid traces (other threads and streams of a rank's process):
  OrphanThreadRegion,  // a thread's parallel region while its master is outside that region
  TeamSizeChange,      // a parallel region's team has another size than the rank's previous team
  StrayLocation,       // a thread or stream in a process without an MPI rank (skipped)
};
inline constexpr int kAnomalyKindCount = 13;
std::string_view to_string(AnomalyKind kind);

struct Anomaly {
  std::uint64_t count = 0;
  std::vector<std::string> examples;  // the first few, human readable
};

class Anomalies {
 public:
  static constexpr std::size_t kMaxExamples = 5;

  // Counts one anomaly; `describe` is called only while examples are still being collected.
  template <typename Describe>
  void add(AnomalyKind kind, Describe&& describe) {
    Anomaly& a = items_[static_cast<std::size_t>(kind)];
    if (a.examples.size() < kMaxExamples) a.examples.push_back(describe());
    ++a.count;
  }
  void reset(AnomalyKind kind) { items_[static_cast<std::size_t>(kind)] = Anomaly{}; }
  // Sets one kind's count and examples (anomalies that crossed from another process).
  void set(AnomalyKind kind, Anomaly anomaly) { items_[static_cast<std::size_t>(kind)] = std::move(anomaly); }
  // Adds `other`'s counts and, while there is room, its examples: as if its anomalies had been
  // added after these ones.
  void merge(const Anomalies& other);
  const Anomaly& operator[](AnomalyKind kind) const { return items_[static_cast<std::size_t>(kind)]; }
  std::uint64_t total() const;

 private:
  std::array<Anomaly, kAnomalyKindCount> items_{};
};

// Anomalies in and out of a process exchange (process_group.hpp): counts and examples.
void pack_anomalies(Packer& out, const Anomalies& anomalies);
Anomalies unpack_anomalies(Unpacker& in);

}  // namespace wisp
