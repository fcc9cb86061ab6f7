// Short names of regions and call paths. See short_names.hpp.
#include "wisp/trace/short_names.hpp"

#include <functional>
#include <map>
#include <optional>

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

// The "[with ...]" bindings as "[T = int]", or the parameter list, of a full name ("" if none).
std::string distinguishing_part(std::string_view name, bool bindings) {
  if (bindings) {
    const auto with = name.find(" [with ");
    return with == std::string_view::npos ? "" : std::string("[").append(name.substr(with + 7));
  }
  std::string_view n = name.substr(0, name.find(" [with "));
  const std::size_t params = parameters_start(n);
  return params == std::string_view::npos ? "" : std::string(n.substr(params));
}

// Whether `names` (for `ids`) are pairwise different.
bool distinct(const std::vector<std::string>& names) {
  std::map<std::string, int> seen;
  for (const std::string& n : names)
    if (++seen[n] > 1) return false;
  return true;
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

std::string source_location(const Region& r) {
  if (r.file.empty() || r.begin_line == 0) return {};  // (Score-P names MPI functions' file "MPI", line 0)
  return r.file + ":" + std::to_string(r.begin_line);
}

std::string short_path(std::string_view path) {
  std::string out;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && (path[i] != '/' || depth != 0)) {
      depth += depth_step(path[i]);
      continue;
    }
    if (!out.empty()) out += '/';
    out += short_name(path.substr(from, i - from));
    from = i + 1;
  }
  return out;
}

std::vector<std::string> region_display_names(const Definitions& defs) {
  std::vector<std::string> out(defs.regions.size());
  std::vector<bool> used(defs.regions.size(), false);
  for (const Callpath& c : defs.callpaths) used[c.region] = true;
  std::map<std::string, std::vector<RegionId>> by_short;
  for (RegionId r = 0; r < defs.regions.size(); ++r) {
    out[r] = short_name(defs.regions[r].name);
    if (used[r]) by_short[out[r]].push_back(r);
  }
  for (const auto& [name, ids] : by_short) {
    if (ids.size() < 2) continue;
    const std::string shorter = name;  // (a structured binding cannot be captured before C++20 in clang 14)
    const std::vector<std::function<std::string(const std::string&)>> forms = {
        [](const std::string& n) { return qualified_short_form(n); },
        [&](const std::string& n) { return std::string(shorter).append(" ").append(distinguishing_part(n, true)); },
        [&](const std::string& n) { return std::string(shorter).append(distinguishing_part(n, false)); },
        [](const std::string& n) { return n; }};
    for (const auto& form : forms) {
      std::vector<std::string> names;
      for (const RegionId r : ids) names.push_back(form(defs.regions[r].name));
      if (!distinct(names) && &form != &forms.back()) continue;
      for (std::size_t k = 0; k < ids.size(); ++k) out[ids[k]] = names[k];
      break;
    }
  }
  return out;
}

std::vector<std::string> callpath_display_names(const Definitions& defs) {
  const std::vector<std::string> regions = region_display_names(defs);
  std::vector<std::vector<std::string>> paths(defs.callpaths.size());  // leaf first
  std::size_t deepest = 0;
  for (CallpathId c = 0; c < defs.callpaths.size(); ++c) {
    for (CallpathId p = c; p != kNone && p < defs.callpaths.size(); p = defs.callpaths[p].parent)
      paths[c].push_back(regions[defs.callpaths[p].region]);
    deepest = std::max(deepest, paths[c].size());
  }
  const auto suffix = [&](CallpathId c, std::size_t length) {
    std::string s;
    for (std::size_t k = std::min(length, paths[c].size()); k-- > 0;) {
      if (!s.empty()) s += '/';
      s += paths[c][k];
    }
    return s;
  };
  std::vector<std::string> out(defs.callpaths.size());
  std::vector<bool> done(defs.callpaths.size(), false);
  for (std::size_t length = 1; length <= deepest; ++length) {
    std::map<std::string, int> count;  // suffixes of this length (whole paths if shorter)
    for (CallpathId c = 0; c < defs.callpaths.size(); ++c) ++count[suffix(c, length)];
    for (CallpathId c = 0; c < defs.callpaths.size(); ++c) {
      if (done[c]) continue;
      out[c] = suffix(c, length);  // unique, or the whole path when no suffix is
      done[c] = count[out[c]] == 1 || length >= paths[c].size();
    }
  }
  return out;
}

}  // namespace wisp
