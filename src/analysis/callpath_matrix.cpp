// Dense (call path, rank) values. See callpath_matrix.hpp.
#include "wisp/analysis/callpath_matrix.hpp"

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

}  // namespace wisp
