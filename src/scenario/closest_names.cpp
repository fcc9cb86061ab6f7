// "Did you mean ...?": the known names closest to a misspelt one. See closest_names.hpp.
#include "wisp/scenario/closest_names.hpp"

#include <algorithm>
#include <cctype>

namespace wisp {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& known,
                                       std::size_t count) {
  const std::string n = lower(name);
  const std::size_t limit = std::max<std::size_t>(2, n.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& k : known) {
    const std::string l = lower(k);
    // Edit distance is quadratic: names far apart in length are not close anyway.
    const std::size_t gap = n.size() > l.size() ? n.size() - l.size() : l.size() - n.size();
    std::size_t d = gap > limit || n.size() > 4096 ? limit + 1 : edit_distance(n, l);
    if (!n.empty() && (l.find(n) != std::string::npos || n.find(l) != std::string::npos))
      d = std::min<std::size_t>(d, 1);
    if (d <= limit) scored.emplace_back(d, k);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, k] : scored) {
    if (out.size() == count) break;
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

std::string shortened(std::string_view name, std::size_t width) {
  if (name.size() <= width) return std::string(name);
  return std::string(name.substr(0, width)) + "...(" + std::to_string(name.size()) + " characters)";
}

}  // namespace wisp
