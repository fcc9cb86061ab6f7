// Writing the thread records of a hybrid trace back to OTF2: the thread teams as communicators of
// their threading paradigm (after the MPI ones), and each THREAD_* record (thread_records.hpp).
#pragma once

#include <otf2/otf2.h>

#include <vector>

#include "wisp/trace/trace.hpp"

namespace wisp::io {

// The OTF2 ids of every rank's locations: [r][0] its master, [r][k + 1] its k-th other location.
using RankLocationIds = std::vector<std::vector<OTF2_LocationRef>>;

// Per threading paradigm a COMM_LOCATIONS group of the locations in its teams, then per team a
// COMM_GROUP (group id first_group + ...) and a communicator first_comm + team index. Returns the
// next free group id.
OTF2_GroupRef write_thread_teams(OTF2_GlobalDefWriter* w, const Definitions& defs, const RankLocationIds& ids,
                                 OTF2_GroupRef first_group, OTF2_CommRef first_comm, OTF2_StringRef empty);

// Writes one record with its attribute list `a` (may be null).
OTF2_ErrorCode write_thread_record(OTF2_EvtWriter* w, OTF2_AttributeList* a, const ThreadRecord& r, OTF2_TimeStamp t,
                                   OTF2_CommRef first_comm);

}  // namespace wisp::io
