// The anchor of every read benchmark: an OTF2 archive read with one local reader per location and
// no callbacks, counting records. wisp's reading and analyses are measured as ratios to it.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <filesystem>

namespace wisp::bench {

// Reads every location with its own local reader and counts the records; no callbacks.
inline std::uint64_t bare_count(const std::filesystem::path& anchor) {
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  uint64_t locations = 0;
  OTF2_Reader_GetNumberOfLocations(reader, &locations);
  // Location ids of a wisp-written archive are 0..n-1 (rank order).
  for (uint64_t l = 0; l < locations; ++l) OTF2_Reader_SelectLocation(reader, l);
  OTF2_Reader_OpenDefFiles(reader);
  for (uint64_t l = 0; l < locations; ++l) {
    OTF2_DefReader* d = OTF2_Reader_GetDefReader(reader, l);
    uint64_t n = 0;
    if (d) {
      OTF2_Reader_ReadAllLocalDefinitions(reader, d, &n);
      OTF2_Reader_CloseDefReader(reader, d);
    }
  }
  OTF2_Reader_CloseDefFiles(reader);
  OTF2_Reader_OpenEvtFiles(reader);
  std::uint64_t total = 0;
  for (uint64_t l = 0; l < locations; ++l) {
    OTF2_EvtReader* e = OTF2_Reader_GetEvtReader(reader, l);
    uint64_t n = 0;
    OTF2_Reader_ReadAllLocalEvents(reader, e, &n);
    total += n;
    OTF2_Reader_CloseEvtReader(reader, e);
  }
  OTF2_Reader_CloseEvtFiles(reader);
  OTF2_Reader_Close(reader);
  return total;
}

}  // namespace wisp::bench
