// Thread teams and thread records written back to OTF2. See otf2_thread_writer.hpp.
#include "otf2_thread_writer.hpp"

#include <algorithm>
#include <map>

namespace wisp::io {

OTF2_GroupRef write_thread_teams(OTF2_GlobalDefWriter* w, const Definitions& defs, const RankLocationIds& ids,
                                 OTF2_GroupRef first_group, OTF2_CommRef first_comm, OTF2_StringRef empty) {
  std::map<std::uint8_t, std::vector<std::uint64_t>> locations;  // per paradigm, in first-seen order
  for (const ThreadTeam& team : defs.thread_teams)
    for (std::uint32_t m : team.members) {
      auto& list = locations[team.paradigm];
      const std::uint64_t id = ids[team.rank][m];
      if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
    }
  OTF2_GroupRef group = first_group;
  std::map<std::uint8_t, OTF2_GroupRef> all_of;
  for (const auto& [paradigm, list] : locations) {
    all_of[paradigm] = group;
    OTF2_GlobalDefWriter_WriteGroup(w, group++, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, paradigm, OTF2_GROUP_FLAG_NONE,
                                    static_cast<uint32_t>(list.size()), list.data());
  }
  for (std::size_t t = 0; t < defs.thread_teams.size(); ++t) {
    const ThreadTeam& team = defs.thread_teams[t];
    const auto& list = locations[team.paradigm];
    std::vector<std::uint64_t> members;  // indices into the paradigm's COMM_LOCATIONS group
    for (std::uint32_t m : team.members)
      members.push_back(
          static_cast<std::uint64_t>(std::find(list.begin(), list.end(), ids[team.rank][m]) - list.begin()));
    OTF2_GlobalDefWriter_WriteGroup(w, group, empty, OTF2_GROUP_TYPE_COMM_GROUP, team.paradigm, OTF2_GROUP_FLAG_NONE,
                                    static_cast<uint32_t>(members.size()), members.data());
    OTF2_GlobalDefWriter_WriteComm(w, first_comm + static_cast<OTF2_CommRef>(t), empty, group++, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
  }
  return group;
}

OTF2_ErrorCode write_thread_record(OTF2_EvtWriter* w, OTF2_AttributeList* a, const ThreadRecord& r, OTF2_TimeStamp t,
                                   OTF2_CommRef first_comm) {
  const OTF2_CommRef team = first_comm + r.team;
  const auto order = static_cast<uint32_t>(r.number);
  switch (r.kind) {
    case ThreadRecordKind::Fork:
      return OTF2_EvtWriter_ThreadFork(w, a, t, r.paradigm, order);
    case ThreadRecordKind::Join:
      return OTF2_EvtWriter_ThreadJoin(w, a, t, r.paradigm);
    case ThreadRecordKind::TeamBegin:
      return OTF2_EvtWriter_ThreadTeamBegin(w, a, t, team);
    case ThreadRecordKind::TeamEnd:
      return OTF2_EvtWriter_ThreadTeamEnd(w, a, t, team);
    case ThreadRecordKind::AcquireLock:
      return OTF2_EvtWriter_ThreadAcquireLock(w, a, t, r.paradigm, r.id, order);
    case ThreadRecordKind::ReleaseLock:
      return OTF2_EvtWriter_ThreadReleaseLock(w, a, t, r.paradigm, r.id, order);
    case ThreadRecordKind::TaskCreate:
      return OTF2_EvtWriter_ThreadTaskCreate(w, a, t, team, r.id, order);
    case ThreadRecordKind::TaskSwitch:
      return OTF2_EvtWriter_ThreadTaskSwitch(w, a, t, team, r.id, order);
    case ThreadRecordKind::TaskComplete:
      return OTF2_EvtWriter_ThreadTaskComplete(w, a, t, team, r.id, order);
  }
  return OTF2_SUCCESS;
}

}  // namespace wisp::io
