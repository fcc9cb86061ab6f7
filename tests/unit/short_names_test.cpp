// Display names of regions and call paths (trace/short_names.hpp), worked out by hand.
#include <catch2/catch.hpp>

#include "wisp/trace/short_names.hpp"

using namespace wisp;

namespace {

// A call path `path` of region ids, each parent the call path before it (added once).
CallpathId add_path(Definitions& d, const std::vector<RegionId>& path) {
  CallpathId parent = kNone;
  for (std::size_t k = 0; k < path.size(); ++k) {
    CallpathId found = kNone;
    for (CallpathId c = 0; c < d.callpaths.size(); ++c)
      if (d.callpaths[c].region == path[k] && d.callpaths[c].parent == parent) found = c;
    if (found == kNone) {
      d.callpaths.push_back({path[k], parent, static_cast<std::uint32_t>(k)});
      found = static_cast<CallpathId>(d.callpaths.size() - 1);
    }
    parent = found;
  }
  return parent;
}

}  // namespace

TEST_CASE("region display names: short names, and the shortest form that tells overloads apart") {
  Definitions d;
  const RegionId main = d.add_region(make_region("int main(int, char**)"));
  const RegionId cg = d.add_region(make_region(
      "void miniFE::cg_solve(OperatorType&, const VectorType&) [with OperatorType = CSRMatrix<double, int, int>]"));
  const RegionId pi = d.add_region(
      make_region("T Mantevo::parse_parameter(const std::string&, const std::string&, const T&) [with T = int]"));
  const RegionId pf = d.add_region(
      make_region("T Mantevo::parse_parameter(const std::string&, const std::string&, const T&) [with T = float]"));
  const RegionId a = d.add_region(make_region("void a::run(int)"));
  const RegionId b = d.add_region(make_region("void b::run(int)"));
  const RegionId unused = d.add_region(make_region("void c::run(int)"));  // in no call path: not counted
  for (RegionId r : {cg, pi, pf, a, b}) add_path(d, {main, r});
  const std::vector<std::string> names = region_display_names(d);
  CHECK(names[main] == "main");
  CHECK(names[cg] == "cg_solve");
  // Same short name, same qualified form: GCC's bindings tell them apart.
  CHECK(names[pi] == "parse_parameter [T = int]");
  CHECK(names[pf] == "parse_parameter [T = float]");
  // Same short name, other namespaces: the qualified short form.
  CHECK(names[a] == "a::run");
  CHECK(names[b] == "b::run");
  CHECK(names[unused] == "run");
}

TEST_CASE("call path display names: the shortest suffix no other call path ends with") {
  Definitions d;
  const RegionId main = d.add_region(make_region("int main(int, char**)"));
  const RegionId driver = d.add_region(make_region("int miniFE::driver(const Box&)"));
  const RegionId cg = d.add_region(make_region("void miniFE::cg_solve(OperatorType&)"));
  const RegionId dot = d.add_region(make_region("double miniFE::dot(const Vector&, const Vector&)"));
  const RegionId allreduce = d.add_region(make_region("MPI_Allreduce"));
  const RegionId setup = d.add_region(make_region("void miniFE::make_local_matrix(MatrixType&)"));
  const CallpathId root = add_path(d, {main});
  const CallpathId cg_dot = add_path(d, {main, driver, cg, dot});
  const CallpathId dot_allreduce = add_path(d, {main, driver, cg, dot, allreduce});
  const CallpathId setup_allreduce = add_path(d, {main, driver, setup, allreduce});
  const CallpathId main_dot = add_path(d, {main, dot});  // dot called from main too
  const std::vector<std::string> names = callpath_display_names(d);
  CHECK(names[root] == "main");
  CHECK(names[cg_dot] == "cg_solve/dot");
  CHECK(names[main_dot] == "main/dot");
  CHECK(names[dot_allreduce] == "dot/MPI_Allreduce");
  CHECK(names[setup_allreduce] == "make_local_matrix/MPI_Allreduce");
  CHECK(names[add_path(d, {main, driver})] == "driver");
}

TEST_CASE("short_path: every component of a full call path text by its short name") {
  CHECK(short_path("int main(int, char**)/void miniFE::cg_solve(A&, B<int, int>&) [with A = x/y]") == "main/cg_solve");
  CHECK(short_path("main/compute") == "main/compute");
}
