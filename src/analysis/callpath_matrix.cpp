// Dense (call path, rank) values. See callpath_matrix.hpp.
#include "wisp/analysis/callpath_matrix.hpp"

#include <algorithm>

#include "wisp/error.hpp"

namespace wisp {

double CallpathMatrix::total(std::uint32_t slot) const {
  double s = 0;
  for (Rank r = 0; r < ranks; ++r) s += at(slot, r);
  return s;
}

double CallpathMatrix::sum() const {
  double s = 0;
  for (double v : values) s += v;
  return s;
}

void gather_rows(CallpathMatrix& m, ProcessGroup& group, const std::vector<RankShare>& shares) {
  const RankShare mine = shares[static_cast<std::size_t>(group.process())];
  Packer out;
  out.put(m.slots).put(m.ranks);
  if (!m.values.empty())
    for (Rank r = mine.first; r < mine.last; ++r) out.put_vector(std::vector<double>(m.row(r), m.row(r) + m.slots));
  const std::vector<std::string> packets = all_gather(group, out.take());
  for (std::size_t p = 0; p < packets.size(); ++p) {
    Unpacker in(packets[p]);
    const auto slots = in.get<std::uint32_t>();
    const auto ranks = in.get<std::uint32_t>();
    if (in.done()) continue;  // an empty matrix there
    if (m.values.empty()) m = CallpathMatrix(slots, ranks);
    for (Rank r = shares[p].first; r < shares[p].last; ++r) {
      const std::vector<double> row = in.get_vector<double>();
      if (row.size() != m.slots) throw Error("gather_rows: the processes' matrices differ in shape");
      std::copy(row.begin(), row.end(), m.row(r));
    }
  }
}

}  // namespace wisp
