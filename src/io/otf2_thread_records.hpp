// Reading OTF2's thread records (THREAD_FORK/JOIN, _TEAM_BEGIN/END, _ACQUIRE/RELEASE_LOCK,
// _TASK_CREATE/SWITCH/COMPLETE) of any location into ThreadRecords. The callbacks are templates on
// the reader's context (a struct with a ThreadRecordSink `threads`), so the master's reader and
// the other locations' reader share them. The context's AttributeSink `attributes` keeps a kept
// record's attribute list.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <vector>

#include "otf2_attributes.hpp"
#include "otf2_definitions.hpp"
#include "wisp/trace/thread_records.hpp"

namespace wisp::io {

struct ThreadRecordSink {
  const ArchiveDefinitions* archive = nullptr;
  std::vector<ThreadRecord>* out = nullptr;
  std::uint64_t unknown_team = 0;  // records naming a communicator that is no thread team: skipped
};

namespace thread_records {

template <class Context>
ThreadRecordSink& sink(void* user) {
  return static_cast<Context*>(user)->threads;
}

template <class Context>
OTF2_CallbackCode add(void* user, OTF2_TimeStamp t, OTF2_AttributeList* a, ThreadRecord r) {
  ThreadRecordSink& s = sink<Context>(user);
  r.time = s.archive->defs.clock.to_seconds(t);
  s.out->push_back(r);
  static_cast<Context*>(user)->attributes.keep(AttributedTable::ThreadRecord, s.out->size() - 1, a);
  return OTF2_CALLBACK_SUCCESS;
}

template <class Context>
OTF2_CallbackCode add_in_team(void* user, OTF2_TimeStamp t, OTF2_AttributeList* a, OTF2_CommRef comm, ThreadRecord r) {
  ThreadRecordSink& s = sink<Context>(user);
  r.team = comm < s.archive->team.size() ? s.archive->team[comm] : kNone;
  if (r.team == kNone) {
    ++s.unknown_team;
    return OTF2_CALLBACK_SUCCESS;
  }
  return add<Context>(user, t, a, r);
}

template <class Context>
OTF2_CallbackCode fork(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                       OTF2_Paradigm paradigm, uint32_t requested) {
  return add<Context>(user, t, a, {0, requested, 0, kNone, paradigm, ThreadRecordKind::Fork});
}
template <class Context>
OTF2_CallbackCode join(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                       OTF2_Paradigm paradigm) {
  return add<Context>(user, t, a, {0, 0, 0, kNone, paradigm, ThreadRecordKind::Join});
}
template <class Context, ThreadRecordKind Kind>
OTF2_CallbackCode team(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                       OTF2_CommRef comm) {
  return add_in_team<Context>(user, t, a, comm, {0, 0, 0, kNone, 0, Kind});
}
template <class Context, ThreadRecordKind Kind>
OTF2_CallbackCode lock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                       OTF2_Paradigm paradigm, uint32_t id, uint32_t order) {
  return add<Context>(user, t, a, {0, order, id, kNone, paradigm, Kind});
}
template <class Context, ThreadRecordKind Kind>
OTF2_CallbackCode task(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                       OTF2_CommRef comm, uint32_t creator, uint32_t generation) {
  return add_in_team<Context>(user, t, a, comm, {0, generation, creator, kNone, 0, Kind});
}

}  // namespace thread_records

template <class Context>
void set_thread_record_callbacks(OTF2_EvtReaderCallbacks* cb) {
  using K = ThreadRecordKind;
  namespace tr = thread_records;
  OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, tr::fork<Context>);
  OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, tr::join<Context>);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, tr::team<Context, K::TeamBegin>);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, tr::team<Context, K::TeamEnd>);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, tr::lock<Context, K::AcquireLock>);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, tr::lock<Context, K::ReleaseLock>);
  OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, tr::task<Context, K::TaskCreate>);
  OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, tr::task<Context, K::TaskSwitch>);
  OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, tr::task<Context, K::TaskComplete>);
}

}  // namespace wisp::io
