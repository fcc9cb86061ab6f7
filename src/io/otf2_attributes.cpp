// Event attribute lists read and written back. See otf2_attributes.hpp.
#include "otf2_attributes.hpp"

#include <cstring>
#include <optional>
#include <unordered_map>

namespace wisp::io {

namespace {

std::uint64_t bits_of(double d) {
  std::uint64_t b = 0;
  std::memcpy(&b, &d, sizeof b);
  return b;
}
double double_of(std::uint64_t b) {
  double d = 0;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

// `ref` through a reference table (OTF2 ref -> wisp id, kNone: not kept).
std::optional<std::uint64_t> mapped(const std::vector<std::uint32_t>& table, std::uint64_t ref) {
  if (ref >= table.size() || table[ref] == kNone) return std::nullopt;
  return table[ref];
}

// An OTF2 value as wisp keeps it (attributes.hpp); none for a kind wisp does not keep.
std::optional<std::uint64_t> to_wisp(const ArchiveDefinitions& a, OTF2_Type type, const OTF2_AttributeValue& v) {
  switch (type) {
    case OTF2_TYPE_UINT8:
      return v.uint8;
    case OTF2_TYPE_UINT16:
      return v.uint16;
    case OTF2_TYPE_UINT32:
      return v.uint32;
    case OTF2_TYPE_UINT64:
      return v.uint64;
    case OTF2_TYPE_INT8:
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v.int8));
    case OTF2_TYPE_INT16:
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v.int16));
    case OTF2_TYPE_INT32:
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v.int32));
    case OTF2_TYPE_INT64:
      return static_cast<std::uint64_t>(v.int64);
    case OTF2_TYPE_FLOAT:
      return bits_of(v.float32);
    case OTF2_TYPE_DOUBLE:
      return bits_of(v.float64);
    case OTF2_TYPE_STRING:
      if (v.stringRef >= a.strings.size()) return std::nullopt;
      return v.stringRef;  // an index into Definitions::attribute_strings after intern_attribute_strings
    case OTF2_TYPE_ATTRIBUTE:
      return mapped(a.attribute, v.attributeRef);
    case OTF2_TYPE_LOCATION:
      return v.locationRef;
    case OTF2_TYPE_REGION:
      if (v.regionRef >= a.region.size() || a.region[v.regionRef] == kNone) return std::nullopt;
      return a.region[v.regionRef];
    case OTF2_TYPE_COMM:
      if (auto comm = mapped(a.comm, v.commRef)) return comm;
      if (auto team = mapped(a.team, v.commRef)) return kTeamAttribute | *team;
      return std::nullopt;
    case OTF2_TYPE_RMA_WIN:
      return mapped(a.rma_window, v.rmaWinRef);
    default:
      return std::nullopt;
  }
}

// A wisp value back as OTF2's, with references as written.
OTF2_AttributeValue to_otf2(const Definitions& defs, const AttributeRefs& refs, const AttributeValue& x) {
  OTF2_AttributeValue v;
  v.uint64 = 0;
  switch (x.type) {
    case OTF2_TYPE_UINT8:
      v.uint8 = static_cast<std::uint8_t>(x.value);
      break;
    case OTF2_TYPE_UINT16:
      v.uint16 = static_cast<std::uint16_t>(x.value);
      break;
    case OTF2_TYPE_UINT32:
      v.uint32 = static_cast<std::uint32_t>(x.value);
      break;
    case OTF2_TYPE_INT8:
      v.int8 = static_cast<std::int8_t>(x.value);
      break;
    case OTF2_TYPE_INT16:
      v.int16 = static_cast<std::int16_t>(x.value);
      break;
    case OTF2_TYPE_INT32:
      v.int32 = static_cast<std::int32_t>(x.value);
      break;
    case OTF2_TYPE_FLOAT:
      v.float32 = static_cast<float>(double_of(x.value));
      break;
    case OTF2_TYPE_DOUBLE:
      v.float64 = double_of(x.value);
      break;
    case OTF2_TYPE_STRING:
      v.stringRef = refs.string(defs.attribute_strings.at(x.value));
      break;
    case OTF2_TYPE_LOCATION: {
      const auto it = refs.location.find(x.value);
      v.locationRef = it != refs.location.end() ? it->second : OTF2_UNDEFINED_LOCATION;
      break;
    }
    case OTF2_TYPE_COMM:
      v.commRef = static_cast<OTF2_CommRef>((x.value & kTeamAttribute) ? refs.first_team + (x.value & ~kTeamAttribute)
                                                                       : x.value);
      break;
    default:
      v.uint64 = x.value;  // UINT64, INT64, ATTRIBUTE, REGION, RMA_WIN: wisp ids are the written ids
  }
  return v;
}

}  // namespace

void AttributeSink::keep(AttributedTable table, std::size_t record, OTF2_AttributeList* list) {
  const std::uint32_t n = list ? OTF2_AttributeList_GetNumberOfElements(list) : 0;
  if (n == 0) return;
  AttributedRecord kept{static_cast<std::uint32_t>(record), static_cast<std::uint32_t>(out->values.size()), 0, table};
  for (std::uint32_t i = 0; i < n; ++i) {
    OTF2_AttributeRef attribute;
    OTF2_Type type;
    OTF2_AttributeValue value;
    if (OTF2_AttributeList_GetAttributeByIndex(list, i, &attribute, &type, &value) != OTF2_SUCCESS) {
      ++unkept;
      continue;
    }
    const auto index = mapped(archive->attribute, attribute);
    const auto converted = to_wisp(*archive, type, value);
    if (!index || !converted) {
      ++unkept;
      continue;
    }
    out->values.push_back(AttributeValue{*converted, static_cast<std::uint32_t>(*index), type});
    ++kept.count;
  }
  if (kept.count) out->records.push_back(kept);
}

void intern_attribute_strings(Trace& trace, const std::vector<std::string>& archive_strings) {
  std::unordered_map<std::uint64_t, std::uint64_t> index;  // OTF2 string ref -> attribute_strings index
  auto& strings = trace.defs.attribute_strings;
  for (RankTrace& rank : trace.ranks)
    for (LocationAttributes& location : rank.attributes)
      for (AttributeValue& v : location.values) {
        if (v.type != OTF2_TYPE_STRING) continue;
        const auto [it, added] = index.try_emplace(v.value, strings.size());
        if (added) strings.push_back(archive_strings[v.value]);
        v.value = it->second;
      }
}

OTF2_AttributeList* fill_attributes(OTF2_AttributeList* list, const Definitions& defs, const AttributeRefs& refs,
                                    const AttributeValue* values, const AttributedRecord* record) {
  if (!record) return nullptr;
  OTF2_AttributeList_RemoveAllAttributes(list);
  for (std::uint32_t i = 0; i < record->count; ++i) {
    const AttributeValue& x = values[record->first + i];
    OTF2_AttributeList_AddAttribute(list, x.attribute, x.type, to_otf2(defs, refs, x));
  }
  return list;
}

void write_attribute_definitions(OTF2_GlobalDefWriter* w, const Definitions& defs,
                                 const std::function<OTF2_StringRef(const std::string&)>& string) {
  for (std::size_t a = 0; a < defs.attributes.size(); ++a) {
    const AttributeDef& d = defs.attributes[a];
    OTF2_GlobalDefWriter_WriteAttribute(w, static_cast<OTF2_AttributeRef>(a), string(d.name), string(d.description),
                                        d.type);
  }
}

}  // namespace wisp::io
