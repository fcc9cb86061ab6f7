// Reading OTF2's RMA records (RMA_WIN_CREATE/DESTROY, RMA_PUT/GET, RMA_OP_COMPLETE_BLOCKING) of any
// location into RmaRecords, and writing them back. The callbacks are templates on the reader's
// context (a struct with an RmaRecordSink `rma`), so the master's reader and the other locations'
// reader share them. The context's AttributeSink `attributes` keeps a kept record's attribute list.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "otf2_attributes.hpp"
#include "otf2_definitions.hpp"
#include "wisp/trace/rma_records.hpp"

namespace wisp::io {

struct RmaRecordSink {
  const ArchiveDefinitions* archive = nullptr;
  std::vector<RmaRecord>* out = nullptr;
  std::uint64_t unknown_window = 0;  // records naming a window that is not kept: skipped
};

namespace rma_records {

template <class Context>
OTF2_CallbackCode add(void* user, OTF2_TimeStamp t, OTF2_AttributeList* a, OTF2_RmaWinRef win, RmaRecord r) {
  RmaRecordSink& s = static_cast<Context*>(user)->rma;
  r.window = win < s.archive->rma_window.size() ? s.archive->rma_window[win] : kNone;
  if (r.window == kNone) {
    ++s.unknown_window;
    return OTF2_CALLBACK_SUCCESS;
  }
  r.time = s.archive->defs.clock.to_seconds(t);
  s.out->push_back(r);
  static_cast<Context*>(user)->attributes.keep(AttributedTable::RmaRecord, s.out->size() - 1, a);
  return OTF2_CALLBACK_SUCCESS;
}

template <class Context, RmaRecordKind Kind>
OTF2_CallbackCode window(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                         OTF2_RmaWinRef win) {
  return add<Context>(user, t, a, win, {0, 0, 0, 0, 0, Kind});
}
template <class Context, RmaRecordKind Kind>
OTF2_CallbackCode transfer(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                           OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matching) {
  return add<Context>(user, t, a, win, {0, bytes, matching, 0, remote, Kind});
}
template <class Context>
OTF2_CallbackCode complete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                           OTF2_RmaWinRef win, uint64_t matching) {
  return add<Context>(user, t, a, win, {0, 0, matching, 0, 0, RmaRecordKind::OpCompleteBlocking});
}

}  // namespace rma_records

template <class Context>
void set_rma_record_callbacks(OTF2_EvtReaderCallbacks* cb) {
  using K = RmaRecordKind;
  namespace rr = rma_records;
  OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, rr::window<Context, K::WinCreate>);
  OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, rr::window<Context, K::WinDestroy>);
  OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, rr::transfer<Context, K::Put>);
  OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, rr::transfer<Context, K::Get>);
  OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, rr::complete<Context>);
}

// Writes one record with its attribute list `a` (may be null).
OTF2_ErrorCode write_rma_record(OTF2_EvtWriter* w, OTF2_AttributeList* a, const RmaRecord& r, OTF2_TimeStamp t);

// Writes the windows (ids: their indices) after the communicators: an MPI one keeps its CommId,
// team k is comm `first_team + k`.
void write_rma_windows(OTF2_GlobalDefWriter* w, const Definitions& defs, OTF2_CommRef first_team,
                       const std::function<OTF2_StringRef(const std::string&)>& string);

}  // namespace wisp::io
