// Two Cube 4 files compared value by value with CubeLib's own library, at full precision (cube_dump
// prints 6 digits): every (metric, call path, location) both hold, metric-inclusive and call-path
// and system exclusive (cube_dump -x incl -z excl). Matched by metric unique name, call path of
// region names and (process rank, location rank). Built and run by scripts/cubelib_check.sh against
// a CubeLib built outside the project (CubeLib is no Debian package).
//   cube_values A.cubex B.cubex LIMIT   prints "N entries, largest relative difference X"; exit 1 above LIMIT
#include <Cube.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

namespace {

using Key = std::tuple<std::string, std::string, long long, int>;

std::string path_of(const cube::Cnode* c) {
  std::string path = c->get_callee()->get_name();
  for (const cube::Cnode* p = c->get_parent(); p; p = p->get_parent()) path = p->get_callee()->get_name() + "/" + path;
  return path;
}

std::map<Key, double> values(const char* file) {
  cube::Cube c;
  c.openCubeReport(file);
  std::map<Key, double> out;
  for (cube::Metric* m : c.get_metv())
    for (cube::Cnode* n : c.get_cnodev())
      for (cube::Location* l : c.get_locationv()) {
        const double v = c.get_sev(m, cube::CUBE_CALCULATE_INCLUSIVE, n, cube::CUBE_CALCULATE_EXCLUSIVE, l,
                                   cube::CUBE_CALCULATE_EXCLUSIVE);
        out[Key{m->get_uniq_name(), path_of(n), l->get_parent()->get_rank(), static_cast<int>(l->get_rank())}] = v;
      }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: cube_values A.cubex B.cubex LIMIT\n");
    return 2;
  }
  try {
    const std::map<Key, double> a = values(argv[1]), b = values(argv[2]);
    if (a.size() != b.size()) {
      std::printf("the cubes hold %zu and %zu entries\n", a.size(), b.size());
      return 1;
    }
    double worst = 0;
    for (const auto& [key, x] : a) {
      const auto it = b.find(key);
      if (it == b.end()) {
        std::printf("%s at %s is only in the first cube\n", std::get<0>(key).c_str(), std::get<1>(key).c_str());
        return 1;
      }
      const double y = it->second, scale = std::max(std::abs(x), std::abs(y));
      if (scale > 0) worst = std::max(worst, std::abs(x - y) / scale);
    }
    std::printf("%zu entries, largest relative difference %.3g\n", a.size(), worst);
    return worst > std::atof(argv[3]) ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cube_values: %s\n", e.what());
    return 2;
  }
}
