// Short forms of region names and a scenario's `region:` resolved against them. See region_names.hpp.
#include "wisp/scenario/region_names.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>

#include "wisp/error.hpp"
#include "wisp/scenario/closest_names.hpp"

namespace wisp {

namespace {

// Nesting depth change of one character: <> () [] count, except the '<' and '>' of "operator<"...
int depth_step(char c) {
  if (c == '<' || c == '(' || c == '[') return 1;
  if (c == '>' || c == ')' || c == ']') return -1;
  return 0;
}

// The start of the parameter list: the last '(' at depth 0 that follows a name character or the
// "()" of "operator()"; npos if there is none (or the brackets do not balance).
std::size_t parameters_start(std::string_view n) {
  std::size_t found = std::string_view::npos;
  int depth = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (n.compare(i, 8, "operator") == 0 && depth == 0) {  // operator(), operator<, ...: not brackets
      std::size_t j = i + 8;
      if (n.compare(j, 2, "()") == 0)
        j += 2;
      else
        while (j < n.size() && std::string_view("<>=!+-*/%^&|~[]").find(n[j]) != std::string_view::npos) ++j;
      i = j - 1;
      continue;
    }
    if (n[i] == '(' && depth == 0 && i > 0) found = i;
    depth += depth_step(n[i]);
    if (depth < 0) return std::string_view::npos;
  }
  return depth == 0 ? found : std::string_view::npos;
}

// Splits at "::" on depth 0 and drops template arguments (depth > 0 parts) of every component.
std::vector<std::string> components(std::string_view head) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (depth == 0 && head.compare(i, 10, "operator()") == 0) {
      out.back() += "operator()";
      i += 9;
      continue;
    }
    if (depth == 0 && c == ':' && i + 1 < head.size() && head[i + 1] == ':') {
      out.emplace_back();
      ++i;
      continue;
    }
    if (c == '<' && depth == 0 && out.back().rfind("operator", 0) == 0 && out.back().size() <= 9) {
      out.back() += c;  // operator< and operator<<
      continue;
    }
    depth += depth_step(c);
    if (depth == 0 && depth_step(c) == 0) out.back() += c;
  }
  return out;
}

// The text after the last space at depth 0 (the return type is before it); "operator new" stays whole.
std::string_view without_return_type(std::string_view head) {
  int depth = 0;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    depth += depth_step(head[i]);
    if (head[i] == ' ' && depth == 0 && !(i >= 8 && head.substr(i - 8, 8) == "operator")) cut = i + 1;
  }
  return head.substr(cut);
}

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

std::string qualified_short_form(std::string_view name) {
  std::string_view n = name;
  if (const auto with = n.find(" [with "); with != std::string_view::npos) n = n.substr(0, with);
  const std::size_t params = parameters_start(n);
  if (params == std::string_view::npos) return std::string(name);
  const std::vector<std::string> parts = components(without_return_type(n.substr(0, params)));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "::") + p;
  return out.empty() ? std::string(name) : out;
}

std::string short_name(std::string_view name) {
  const std::string q = qualified_short_form(name);
  const std::vector<std::string> parts = components(q);
  if (parts.size() >= 2 && parts.back() == "operator()") return parts[parts.size() - 2];
  return parts.back().empty() ? q : parts.back();
}

std::string middle_shortened(std::string_view name, std::size_t width) {
  if (name.size() <= width || width < 10) return std::string(name);
  const std::size_t head = (width - 3) / 2, tail = width - 3 - head;
  return std::string(name.substr(0, head)) + "..." + std::string(name.substr(name.size() - tail));
}

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
