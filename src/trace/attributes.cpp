// A location's attribute lists walked in record order. See attributes.hpp.
#include "wisp/trace/attributes.hpp"

namespace wisp {

AttributeCursor::AttributeCursor(const RankAttributes& rank, std::size_t location, AttributedTable table)
    : location_(location < rank.size() && !rank[location].empty() ? &rank[location] : nullptr), table_(table) {}

const AttributedRecord* AttributeCursor::at(std::uint32_t record) {
  if (!location_) return nullptr;
  const auto& records = location_->records;
  while (next_ < records.size() && (records[next_].table != table_ || records[next_].record < record)) ++next_;
  if (next_ < records.size() && records[next_].record == record) return &records[next_];
  return nullptr;
}

}  // namespace wisp
