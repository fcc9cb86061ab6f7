// A directed acyclic multigraph of activities (paper 001 §2.1): edges are activities with a
// duration and a label (call path, kind), vertices mark activity boundaries. The program activity
// graph (pag.hpp) is one; tests build small ones by hand. Durations are integer clock ticks so that
// ties, slacks and path lengths are exact.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

using Ticks = std::int64_t;

enum class ActivityKind : std::uint8_t {
  Computation,      // local, outside MPI (user code)
  Mpi,              // local, inside an MPI call, its wait time excluded
  Message,          // send start -> receive completion (point-to-point)
  Rendezvous,       // receive posted -> send completion (the sender waited for the receiver)
  Collective,       // synchronisation vertex -> a member's collective end
  Synchronisation,  // a member's collective begin -> synchronisation vertex (zero duration)
  Launch,           // virtual start -> a rank's first event (its launch offset)
};
std::string_view to_string(ActivityKind kind);
inline bool is_local(ActivityKind k) { return k == ActivityKind::Computation || k == ActivityKind::Mpi; }

// Call path label of launch activities (they belong to no region).
inline constexpr CallpathId kLaunchCallpath = kNone - 1;

struct Activity {
  Ticks duration = 0;
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  CallpathId callpath = kNone;
  ActivityKind kind = ActivityKind::Computation;
};

struct ActivityGraph {
  std::uint32_t vertex_count = 0;
  std::vector<Activity> activities;
  std::vector<std::uint32_t> lane;  // per vertex: the rank it belongs to, kNone if none (may be empty)

  // Derived by index_graph(): activities by source and by target (CSR), a topological order.
  std::vector<std::uint32_t> out_begin, out;
  std::vector<std::uint32_t> in_begin, in;
  std::vector<std::uint32_t> order;

  std::uint32_t add_vertex(std::uint32_t vertex_lane = kNone);
  // Inline: the PAG adds about one activity per event.
  std::uint32_t add_activity(const Activity& a) {
    activities.push_back(a);
    return static_cast<std::uint32_t>(activities.size() - 1);
  }

  std::span<const std::uint32_t> outgoing(std::uint32_t v) const {
    return {out.data() + out_begin[v], out.data() + out_begin[v + 1]};
  }
  std::span<const std::uint32_t> incoming(std::uint32_t v) const {
    return {in.data() + in_begin[v], in.data() + in_begin[v + 1]};
  }
  std::uint32_t lane_of(std::uint32_t v) const { return lane.empty() ? kNone : lane[v]; }
  bool is_root(std::uint32_t v) const { return in_begin[v] == in_begin[v + 1] && out_begin[v] != out_begin[v + 1]; }
  bool is_leaf(std::uint32_t v) const { return out_begin[v] == out_begin[v + 1]; }
  std::uint64_t memory_bytes() const;
};

// Builds the CSR indices and a topological order (Kahn, linear time). Activities that close a cycle
// (only possible between events with equal timestamps in an inconsistent trace) are removed,
// non-local ones first; returns how many were removed. Throws wisp::Error on a bad vertex id.
std::uint64_t index_graph(ActivityGraph& g);

}  // namespace wisp
