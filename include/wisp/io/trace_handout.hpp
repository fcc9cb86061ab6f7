// A whole trace held by one process, handed out to a group as shares (wisp run under mpirun: SimGrid
// makes the simulated traces in one process, their analyses spread over every process). Each process
// gets the definitions and its ranks' records over the group's exchange, then derives what crosses
// ranks as the spread reader does (derive.hpp), so that its share equals read_otf2's of the same trace.
#pragma once

#include "wisp/group/pack.hpp"
#include "wisp/group/process_group.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// Collective. `whole`: the trace on process `from`, null on the others. Shares as read_otf2 makes them
// (share_of: contiguous ranks, about the same number of events each); the anomalies are the whole trace's.
Trace hand_out(const Trace* whole, ProcessGroup& group, int from = 0);

// Every field of the definitions as bytes, and back.
void pack_definitions(Packer& out, const Definitions& defs);
Definitions unpack_definitions(Unpacker& in);

}  // namespace wisp
