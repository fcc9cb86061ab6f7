// Partitions: derived from executed user call paths, or parsed from a partition file.
#include "wisp/analysis/partitions.hpp"

#include <fmt/format.h>

#include <map>

#include "wisp/error.hpp"
#include "wisp/trace/rank_set.hpp"

namespace wisp {

Partitions derive_partitions(const Trace& trace, const Profile& profile) {
  Partitions p;
  p.origin = "derived: ranks executing the same user-function call paths";
  const Definitions& defs = trace.defs;
  std::map<std::vector<CallpathId>, std::uint32_t> index;
  std::vector<std::vector<Rank>> members;
  p.of_rank.resize(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    std::vector<CallpathId> key;
    for (CallpathId cp = 0; cp < defs.callpaths.size(); ++cp)
      if (defs.region_of(cp).kind == RegionKind::User && profile.visits.at(slot_of(cp), r) > 0) key.push_back(cp);
    auto [it, fresh] = index.try_emplace(std::move(key), static_cast<std::uint32_t>(members.size()));
    if (fresh) members.emplace_back();
    members[it->second].push_back(r);
    p.of_rank[r] = it->second;
  }
  for (const auto& m : members) p.names.push_back("ranks " + format_rank_set(m));
  return p;
}

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

}  // namespace

Partitions parse_partitions(std::string_view text, const std::string& source, std::uint32_t rank_count) {
  Partitions p;
  p.origin = source;
  p.of_rank.assign(rank_count, kNone);
  std::vector<std::size_t> line_of(rank_count, 0);
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const auto colon = line.find(':');
    const std::string where = fmt::format("{}:{}", source, line_no);
    if (colon == std::string_view::npos)
      throw Error(fmt::format("{}: expected 'name: ranks' (e.g. 'mesh: 0-3'), got '{}'", where, line));
    const std::string name(trim(line.substr(0, colon)));
    if (name.empty()) throw Error(fmt::format("{}: the partition has no name before ':'", where));
    std::vector<Rank> ranks;
    try {
      ranks = parse_rank_set(trim(line.substr(colon + 1)), rank_count);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: partition '{}': {}", where, name, e.what()));
    }
    if (ranks.empty()) throw Error(fmt::format("{}: partition '{}' has no ranks", where, name));
    const auto id = static_cast<std::uint32_t>(p.names.size());
    for (Rank r : ranks) {
      if (p.of_rank[r] != kNone)
        throw Error(fmt::format("{}: rank {} is already in partition '{}' (line {})", where, r, p.names[p.of_rank[r]],
                                line_of[r]));
      p.of_rank[r] = id;
      line_of[r] = line_no;
    }
    p.names.push_back(name);
  }
  std::vector<Rank> missing;
  for (Rank r = 0; r < rank_count; ++r)
    if (p.of_rank[r] == kNone) missing.push_back(r);
  if (!missing.empty())
    throw Error(
        fmt::format("{}: ranks {} are in no partition (the trace has {} ranks; list every "
                    "rank exactly once)",
                    source, format_rank_set(missing), rank_count));
  return p;
}

}  // namespace wisp
