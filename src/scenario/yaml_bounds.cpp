// Bounded walk of a scenario's YAML graph. See yaml_bounds.hpp.
#include "yaml_bounds.hpp"

#include <fmt/format.h>

#include <vector>

#include "wisp/error.hpp"

namespace wisp {

namespace {

struct Walk {
  const std::string& file;
  std::vector<YAML::Node> path;  // the lists and maps being walked, outermost first
  std::size_t visited = 0;
};

[[noreturn]] void refuse(const Walk& w, const YAML::Node& n, const std::string& what) {
  const YAML::Mark m = n.Mark();
  throw Error(fmt::format("{}:{}:{}: {}", w.file, m.line + 1, m.column + 1, what));
}

void visit(Walk& w, const YAML::Node& n) {
  if (++w.visited > kYamlNodes)
    refuse(w, n,
           fmt::format("the document expands to more than {} nodes: aliases (*name) are copied where they "
                       "are used, and these multiply (an alias bomb?)",
                       kYamlNodes));
  if (!n.IsSequence() && !n.IsMap()) return;
  for (const YAML::Node& outer : w.path)
    if (outer.is(n))
      refuse(w, n, "recursive alias: an anchored list or map (&name) contains an alias of itself (*name)");
  if (w.path.size() >= kYamlDepth) refuse(w, n, fmt::format("lists and maps nested deeper than {} levels", kYamlDepth));
  w.path.push_back(n);
  if (n.IsSequence()) {
    for (const YAML::Node& item : n) visit(w, item);
  } else {
    for (const auto& kv : n) {
      visit(w, kv.first);
      visit(w, kv.second);
    }
  }
  w.path.pop_back();
}

}  // namespace

void check_yaml_bounds(const YAML::Node& root, const std::string& file) {
  Walk w{file, {}, 0};
  visit(w, root);
}

}  // namespace wisp
