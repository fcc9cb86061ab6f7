// The thread records of a hybrid trace, in OTF2's vocabulary: THREAD_FORK/JOIN on the master,
// THREAD_TEAM_BEGIN/END, THREAD_ACQUIRE/RELEASE_LOCK and THREAD_TASK_CREATE/SWITCH/COMPLETE on every
// thread of a team. wisp does not replay them; it keeps them so that a simulated trace still holds
// them, moved with the master's timeline like the threads' regions (other_locations.hpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

enum class ThreadRecordKind : std::uint8_t {
  Fork,
  Join,
  TeamBegin,
  TeamEnd,
  AcquireLock,
  ReleaseLock,
  TaskCreate,
  TaskSwitch,
  TaskComplete,
};
inline constexpr int kThreadRecordKindCount = 9;
std::string_view to_string(ThreadRecordKind k);  // "THREAD_FORK", ... as otf2-print names them

struct ThreadRecord {
  bool operator==(const ThreadRecord&) const = default;
  double time = 0;
  std::uint64_t number = 0;    // Fork: requested threads; locks: acquisition order; tasks: generation number
  std::uint32_t id = 0;        // locks: lock id; tasks: creating thread (its index in the team)
  std::uint32_t team = kNone;  // TeamBegin/End and tasks: Definitions::thread_teams index
  std::uint8_t paradigm = 0;   // Fork, Join and locks: OTF2_Paradigm (OpenMP, Pthread, ...)
  ThreadRecordKind kind = ThreadRecordKind::Fork;
};

// Per location of a rank: [0] the master's records, [k + 1] those of Location::others[k]. Empty
// when the trace has none.
using ThreadRecords = std::vector<std::vector<ThreadRecord>>;

// A team of threads (an OTF2 communicator of a threading paradigm): the rank it belongs to and
// its members, as indices into the rank's locations (0: the master, k + 1: Location::others[k]).
struct ThreadTeam {
  bool operator==(const ThreadTeam&) const = default;
  Rank rank = kNone;
  std::vector<std::uint32_t> members;
  std::uint8_t paradigm = 0;  // OTF2_Paradigm
  bool accelerator = false;   // a rank's master and its accelerator streams (CUDA, ...): RMA windows' teams
};

}  // namespace wisp
