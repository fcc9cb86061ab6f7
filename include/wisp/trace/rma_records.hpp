// One-sided communication records as OTF2 has them (RMA_WIN_CREATE/DESTROY, RMA_PUT/GET,
// RMA_OP_COMPLETE_BLOCKING): older Score-P versions record CUDA memory copies this way on the
// accelerator streams. wisp does not model them; it keeps them, moved with the master's timeline
// like the other threads' regions (other_locations.hpp), so that a simulated trace still holds them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

enum class RmaRecordKind : std::uint8_t { WinCreate, WinDestroy, Put, Get, OpCompleteBlocking };
std::string_view to_string(RmaRecordKind k);  // "RMA_WIN_CREATE", ... as otf2-print names them

struct RmaRecord {
  bool operator==(const RmaRecord&) const = default;
  double time = 0;
  std::uint64_t bytes = 0;     // Put, Get
  std::uint64_t matching = 0;  // Put, Get, OpCompleteBlocking: the operation's id
  std::uint32_t window = 0;    // index into Definitions::rma_windows
  std::uint32_t remote = 0;    // Put, Get: the target's rank in the window's communicator
  RmaRecordKind kind = RmaRecordKind::WinCreate;
};

// Per location of a rank: [0] the master's records, [k + 1] those of Location::others[k]. Empty
// when the trace has none.
using RmaRecords = std::vector<std::vector<RmaRecord>>;

// A window (OTF2 RmaWin) over an MPI communicator or a team of Definitions::thread_teams (e.g. a
// CUDA team: a rank's master and its stream).
struct RmaWindow {
  bool operator==(const RmaWindow&) const = default;
  std::string name;
  std::uint32_t comm = kNone;  // a CommId, or a thread_teams index if `on_team`
  bool on_team = false;
  std::uint32_t flags = 0;  // OTF2_RmaWinFlag
};

}  // namespace wisp
