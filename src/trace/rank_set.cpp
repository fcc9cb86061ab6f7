// Rank set parsing and formatting. See rank_set.hpp.
#include "wisp/trace/rank_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "wisp/error.hpp"

namespace wisp {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Rank parse_rank(std::string_view part, std::string_view whole, std::uint32_t rank_count) {
  part = trim(part);
  Rank value = 0;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
  if (part.empty() || ec != std::errc() || end != part.data() + part.size())
    throw Error(fmt::format("rank set '{}': '{}' is not a rank number", whole, part));
  if (value >= rank_count)
    throw Error(fmt::format("rank set '{}': rank {} does not exist (the trace has ranks 0-{})", whole, value,
                            rank_count == 0 ? 0 : rank_count - 1));
  return value;
}

}  // namespace

std::vector<Rank> parse_rank_set(std::string_view text, std::uint32_t rank_count) {
  std::vector<Rank> out;
  std::string_view rest = text;
  if (trim(rest).empty()) throw Error(fmt::format("rank set '{}' is empty", text));
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    const auto dash = item.find('-', 1);
    if (dash == std::string_view::npos) {
      out.push_back(parse_rank(item, text, rank_count));
    } else {
      const Rank lo = parse_rank(item.substr(0, dash), text, rank_count);
      const Rank hi = parse_rank(item.substr(dash + 1), text, rank_count);
      if (hi < lo) throw Error(fmt::format("rank set '{}': range {} is reversed (write {}-{})", text, item, hi, lo));
      for (Rank r = lo; r <= hi; ++r) out.push_back(r);
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_rank_set(const std::vector<Rank>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace wisp
