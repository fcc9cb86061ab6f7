// Event attribute lists (trace/attributes.hpp) read from any location's records and written back:
// the conversion of OTF2 attribute values to wisp's (references renumbered) and back.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "otf2_definitions.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::io {

// Keeps the attribute lists of one location's kept records. A value of a kind wisp does not keep
// (a GROUP, SOURCE_CODE_LOCATION, ... reference, or an undefined attribute) is counted in `unkept`.
struct AttributeSink {
  const ArchiveDefinitions* archive = nullptr;
  LocationAttributes* out = nullptr;
  std::uint64_t unkept = 0;
  // The list of `record` of `table` (the record just kept); nothing for a null or empty list.
  void keep(AttributedTable table, std::size_t record, OTF2_AttributeList* list);
};

// STRING values hold OTF2 string refs while reading; this turns them into indices into
// Definitions::attribute_strings (the strings of `archive` they name).
void intern_attribute_strings(Trace& trace, const std::vector<std::string>& archive_strings);

// What written references map to: location ids as written, the id of a string in the written
// string table, the first thread team's communicator id.
struct AttributeRefs {
  std::unordered_map<std::uint64_t, std::uint64_t> location;  // OTF2 id read -> id written
  std::function<OTF2_StringRef(const std::string&)> string;
  OTF2_CommRef first_team = 0;
};

// `list` emptied and filled with `record`'s values; null when `record` is null (no list).
OTF2_AttributeList* fill_attributes(OTF2_AttributeList* list, const Definitions& defs, const AttributeRefs& refs,
                                    const AttributeValue* values, const AttributedRecord* record);

// The attribute definitions (ids: their indices), written after the strings `string` interns.
void write_attribute_definitions(OTF2_GlobalDefWriter* w, const Definitions& defs,
                                 const std::function<OTF2_StringRef(const std::string&)>& string);

// Owns an OTF2_AttributeList for a writer.
struct AttributeListHandle {
  OTF2_AttributeList* list = OTF2_AttributeList_New();
  AttributeListHandle() = default;
  AttributeListHandle(const AttributeListHandle&) = delete;
  AttributeListHandle& operator=(const AttributeListHandle&) = delete;
  ~AttributeListHandle() { OTF2_AttributeList_Delete(list); }
};

}  // namespace wisp::io
