// Short forms of region names and a scenario's `region:` resolved against them. See region_names.hpp.
#include "wisp/scenario/region_names.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>

#include "wisp/error.hpp"
#include "wisp/scenario/closest_names.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

namespace {

struct Named {
  RegionId id;
  std::string qualified, shorter;
};

std::string candidates(const Definitions& defs, const std::vector<const Named*>& found) {
  std::string out;
  for (std::size_t i = 0; i < found.size() && i < 5; ++i)
    out += fmt::format("{}{} = '{}'", i ? "; " : "", found[i]->qualified,
                       middle_shortened(defs.regions[found[i]->id].name, 60));
  if (found.size() > 5) out += fmt::format("; and {} more", found.size() - 5);
  return out;
}

}  // namespace

std::vector<bool> resolve_region(const Definitions& defs, const std::string& wanted) {
  std::vector<bool> match(defs.regions.size(), false);
  bool any = false;
  for (RegionId r = 0; r < defs.regions.size(); ++r) any |= match[r] = defs.regions[r].name == wanted;
  if (!any && wanted.find_first_of("*?[") != std::string::npos)
    for (RegionId r = 0; r < defs.regions.size(); ++r)
      any |= match[r] = fnmatch(wanted.c_str(), defs.regions[r].name.c_str(), 0) == 0;
  if (any) return match;

  std::vector<bool> used(defs.regions.size(), false);
  for (const Callpath& c : defs.callpaths) used[c.region] = true;
  std::vector<Named> named;
  for (RegionId r = 0; r < defs.regions.size(); ++r)
    if (used[r]) named.push_back({r, qualified_short_form(defs.regions[r].name), short_name(defs.regions[r].name)});
  using Rule = bool (*)(const Named&, const std::string&);
  const Rule rules[] = {
      [](const Named& n, const std::string& w) { return n.qualified == w; },
      [](const Named& n, const std::string& w) { return n.shorter == w; },
      [](const Named& n, const std::string& w) { return !w.empty() && n.shorter.rfind(w, 0) == 0; },
  };
  const char* what[] = {"short form", "short name", "short name starting with it"};
  for (int k = 0; k < 3; ++k) {
    std::vector<const Named*> found;
    for (const Named& n : named)
      if (rules[k](n, wanted)) found.push_back(&n);
    if (found.size() == 1) {
      match[found[0]->id] = true;
      return match;
    }
    if (found.size() > 1)
      throw Error(
          fmt::format("region '{}' is ambiguous: {} regions have this {}: {} (write more of the name, or "
                      "the full name)",
                      shortened(wanted), found.size(), what[k], candidates(defs, found)));
  }
  std::vector<std::string> user;  // suggestions: user regions, compared by short name
  for (const Named& n : named)
    if (defs.regions[n.id].kind == RegionKind::User) user.push_back(n.shorter);
  std::string close;  // every region with one of the closest short names
  for (const std::string& c : closest_names(short_name(wanted), user, 3))
    for (const Named& n : named) {
      const std::string& full = defs.regions[n.id].name;
      if (n.shorter != c || defs.regions[n.id].kind != RegionKind::User) continue;
      close += (close.empty() ? "" : ", ") + (full == c ? c : fmt::format("{} = '{}'", c, middle_shortened(full, 60)));
    }
  throw Error(fmt::format("no region '{}' in the trace{}", shortened(wanted),
                          close.empty() ? "" : fmt::format(" (closest: {})", close)));
}

}  // namespace wisp
