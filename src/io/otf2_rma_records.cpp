// Writing RMA records and windows. See otf2_rma_records.hpp.
#include "otf2_rma_records.hpp"

namespace wisp::io {

OTF2_ErrorCode write_rma_record(OTF2_EvtWriter* w, OTF2_AttributeList* a, const RmaRecord& r, OTF2_TimeStamp t) {
  switch (r.kind) {
    case RmaRecordKind::WinCreate:
      return OTF2_EvtWriter_RmaWinCreate(w, a, t, r.window);
    case RmaRecordKind::WinDestroy:
      return OTF2_EvtWriter_RmaWinDestroy(w, a, t, r.window);
    case RmaRecordKind::Put:
      return OTF2_EvtWriter_RmaPut(w, a, t, r.window, r.remote, r.bytes, r.matching);
    case RmaRecordKind::Get:
      return OTF2_EvtWriter_RmaGet(w, a, t, r.window, r.remote, r.bytes, r.matching);
    case RmaRecordKind::OpCompleteBlocking:
      return OTF2_EvtWriter_RmaOpCompleteBlocking(w, a, t, r.window, r.matching);
  }
  return OTF2_SUCCESS;
}

void write_rma_windows(OTF2_GlobalDefWriter* w, const Definitions& defs, OTF2_CommRef first_team,
                       const std::function<OTF2_StringRef(const std::string&)>& string) {
  for (std::size_t i = 0; i < defs.rma_windows.size(); ++i) {
    const RmaWindow& win = defs.rma_windows[i];
    OTF2_GlobalDefWriter_WriteRmaWin(w, static_cast<OTF2_RmaWinRef>(i), string(win.name),
                                     win.on_team ? first_team + win.comm : win.comm, win.flags);
  }
}

}  // namespace wisp::io
