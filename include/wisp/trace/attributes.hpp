// Event attributes as OTF2 has them (ATTRIBUTE definitions; an attribute list on any event record):
// Score-P's process id at PROGRAM_BEGIN, the CUDA stream a kernel launch targets, ... wisp does not
// analyse them; it keeps each list with the record it came with, so that a simulated trace has them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

// One ATTRIBUTE definition; `type` is its OTF2_Type.
struct AttributeDef {
  bool operator==(const AttributeDef&) const = default;
  std::string name, description;
  std::uint8_t type = 0;
};

// One value of an attribute list. `value`: integers widened to 64 bits, FLOAT and DOUBLE as the
// double's bits; references as wisp ids: STRING an index into Definitions::attribute_strings,
// LOCATION the location's OTF2 id as read, REGION a RegionId, COMM a CommId (MPI) or
// kTeamAttribute | thread-team index, RMA_WIN a Definitions::rma_windows index, ATTRIBUTE a
// Definitions::attributes index.
struct AttributeValue {
  bool operator==(const AttributeValue&) const = default;
  std::uint64_t value = 0;
  std::uint32_t attribute = 0;  // index into Definitions::attributes
  std::uint8_t type = 0;        // OTF2_Type
};
inline constexpr std::uint64_t kTeamAttribute = std::uint64_t{1} << 63;

// The tables of a rank's records an attribute list can belong to.
enum class AttributedTable : std::uint8_t {
  Event,          // RankTrace::events (masters only)
  LocationEvent,  // RankTrace::others (other threads and streams)
  ThreadRecord,   // RankTrace::thread_records
  RmaRecord,      // RankTrace::rma_records
  MetricSample,   // RankTrace::metrics[0] (the master), other_metrics[k] (location k + 1)
};

// The attribute list of one record: values [first, first + count) of its location's values.
struct AttributedRecord {
  bool operator==(const AttributedRecord&) const = default;
  std::uint32_t record = 0;  // index into the table at this location
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  AttributedTable table = AttributedTable::Event;
};

// The attribute lists of one location, in the order its records were read (so, per table, by
// record index).
struct LocationAttributes {
  bool operator==(const LocationAttributes&) const = default;
  std::vector<AttributedRecord> records;
  std::vector<AttributeValue> values;
  bool empty() const { return records.empty(); }
};

// Per rank: [0] its master's lists, [k + 1] those of Location::others[k]. Empty when the rank has none.
using RankAttributes = std::vector<LocationAttributes>;

// Walks one table's attribute lists of a location in record order: at(i) is record i's list or
// null. Records must be asked for in increasing order (as writers write them).
class AttributeCursor {
 public:
  AttributeCursor(const RankAttributes& rank, std::size_t location, AttributedTable table);
  const AttributedRecord* at(std::uint32_t record);
  const AttributeValue* values() const { return location_ ? location_->values.data() : nullptr; }

 private:
  const LocationAttributes* location_ = nullptr;
  AttributedTable table_;
  std::size_t next_ = 0;
};

}  // namespace wisp
