// Selections resolved against a trace, computation of visits, and retiming. See selection.hpp.
#include "wisp/scenario/selection.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>

#include "wisp/error.hpp"
#include "wisp/scenario/closest_names.hpp"
#include "wisp/scenario/region_names.hpp"
#include "wisp/trace/rank_set.hpp"

namespace wisp {

namespace {

// Exact match first (names may contain glob characters, e.g. operator[]), then glob.
bool matches(const std::string& pattern, const std::string& name, bool exact_exists) {
  if (pattern == name) return true;
  return !exact_exists && fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

[[noreturn]] void fail(const Selection& s, const std::string& what) { throw Error(s.where.str() + ": " + what); }

// Call paths the selection matches.
std::vector<bool> matching_callpaths(const Trace& t, const Selection& s) {
  const auto& d = t.defs;
  std::vector<bool> match(d.callpaths.size(), false);
  std::vector<bool> regions;  // which regions s.region selects (region_names.hpp)
  if (!s.region.empty()) {
    try {
      regions = resolve_region(d, s.region);
    } catch (const Error& e) {
      fail(s, e.what());
    }
  }
  std::vector<std::string> paths;
  for (CallpathId c = 0; c < d.callpaths.size(); ++c) paths.push_back(d.callpath_name(c));
  const bool path_exact = std::find(paths.begin(), paths.end(), s.callpath) != paths.end();

  bool any_region = s.region.empty(), any_path = s.callpath.empty();
  for (CallpathId c = 0; c < d.callpaths.size(); ++c) {
    const Region& region = d.region_of(c);
    const bool region_ok = s.region.empty() || regions[d.callpaths[c].region];
    const bool path_ok = s.callpath.empty() || matches(s.callpath, paths[c], path_exact);
    any_region |= region_ok;
    any_path |= path_ok;
    if (s.region.empty() && s.callpath.empty())  // no region: whole ranks (their root regions; a root MPI call
      match[c] = d.callpaths[c].parent == kNone && region.kind != RegionKind::Measurement &&  // has no computation)
                 !is_mpi(region.kind);
    else
      match[c] = region_ok && path_ok;
    if (match[c] && is_mpi(region.kind))
      fail(s, fmt::format("'{}' is an MPI function; transforms change computation (use 'zero: "
                          "communication' or a platform change for communication)",
                          region.name));
  }
  if (!any_region) fail(s, fmt::format("region '{}' occurs in no call path of the trace", shortened(s.region)));
  if (!any_path) {
    auto close = closest_names(s.callpath, paths, 3);
    for (auto& c : close) c = shortened(c);
    fail(s, fmt::format("no call path '{}' in the trace{}", shortened(s.callpath),
                        close.empty() ? "" : fmt::format(" (closest: {})", fmt::join(close, ", "))));
  }
  return match;
}

}  // namespace

std::vector<bool> mpi_gaps(const RankTrace& rt) {
  std::vector<bool> in_mpi(rt.events.size(), false);
  for (const CallSpan& c : rt.mpi_calls)
    for (EventIndex i = c.enter; i < c.leave; ++i) in_mpi[i] = true;
  return in_mpi;
}

std::vector<Visit> select_visits(const Trace& t, const Selection& s) {
  const std::vector<bool> match = matching_callpaths(t, s);
  std::vector<Rank> ranks = s.ranks;
  if (!s.ranks_text.empty()) {
    try {
      ranks = parse_rank_set(s.ranks_text, t.rank_count());
    } catch (const Error& e) {
      fail(s, e.what());
    }
  }
  if (ranks.empty())
    for (Rank r = 0; r < t.rank_count(); ++r) ranks.push_back(r);

  std::vector<Visit> visits;
  for (Rank r : ranks) {
    const auto& ev = t.ranks[r].events;
    std::uint32_t index = 0;
    EventIndex open = kNone;
    std::uint32_t depth = 0;  // nesting inside the open visit
    for (EventIndex i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
      if (open == kNone) {
        if (e.kind == EventKind::Enter && match[e.callpath()]) open = i, depth = 0;
        continue;
      }
      if (e.kind == EventKind::Enter) {
        ++depth;
      } else if (depth > 0) {
        --depth;
      } else {
        const Visit v{r, open, i, index++};
        const bool in_iterations = !s.iterations || (v.index >= s.iterations->first && v.index <= s.iterations->second);
        const double entered = ev[open].time;
        const bool in_time = !s.time || (entered >= s.time->first && entered <= s.time->second);
        if (in_iterations && in_time) visits.push_back(v);
        open = kNone;
      }
    }
  }
  if (visits.empty()) {
    std::string what = s.region.empty() ? (s.callpath.empty() ? std::string("the ranks") : s.callpath) : s.region;
    fail(s,
         fmt::format("the selection ({}{}{}{}) matches no visit in the trace", what,
                     s.ranks_text.empty() ? "" : ", ranks " + s.ranks_text,
                     s.iterations ? fmt::format(", iterations {}-{}", s.iterations->first, s.iterations->second) : "",
                     s.time ? fmt::format(", time {}-{} s", s.time->first, s.time->second) : ""));
  }
  return visits;
}

std::vector<double> computation(const Trace& t, const std::vector<Visit>& visits) {
  std::vector<double> out;
  out.reserve(visits.size());
  Rank cached = kNone;
  std::vector<bool> in_mpi;
  for (const Visit& v : visits) {
    if (v.rank != cached) in_mpi = mpi_gaps(t.ranks[v.rank]), cached = v.rank;
    const auto& ev = t.ranks[v.rank].events;
    double c = 0;
    for (EventIndex i = v.enter; i < v.leave; ++i)
      if (!in_mpi[i]) c += ev[i + 1].time - ev[i].time;
    out.push_back(c);
  }
  return out;
}

Trace retime(const Trace& t, const std::vector<Visit>& visits, const std::vector<double>& target) {
  const std::vector<double> before = computation(t, visits);
  GapRetiming gaps{std::vector<std::vector<double>>(t.rank_count()), std::vector<std::vector<double>>(t.rank_count())};
  auto& [factor, extra] = gaps;
  std::vector<std::vector<bool>> in_mpi(t.rank_count());
  for (std::size_t k = 0; k < visits.size(); ++k) {
    if (target[k] == before[k]) continue;  // unchanged: the rank's times stay exactly as they were
    const Visit& v = visits[k];
    auto& f = factor[v.rank];
    if (f.empty()) {
      f.assign(t.ranks[v.rank].events.size(), 1.0);
      extra[v.rank].assign(f.size(), 0.0);
      in_mpi[v.rank] = mpi_gaps(t.ranks[v.rank]);
    }
    if (before[k] > 0) {
      const double scale = target[k] / before[k];
      for (EventIndex i = v.enter; i < v.leave; ++i)
        if (!in_mpi[v.rank][i]) f[i] = scale;
    } else {
      extra[v.rank][v.enter] += target[k];  // right after the Enter: outside any MPI call
    }
  }
  return retime(t, gaps);
}

Trace retime(const Trace& t, const GapRetiming& gaps) {
  Trace out = t;
  for (Rank r = 0; r < t.rank_count() && r < gaps.factor.size(); ++r) {
    if (gaps.factor[r].empty()) continue;
    const auto& src = t.ranks[r].events;
    auto& dst = out.ranks[r].events;
    for (std::size_t i = 0; i + 1 < src.size(); ++i)
      dst[i + 1].time = dst[i].time + (src[i + 1].time - src[i].time) * gaps.factor[r][i] + gaps.extra[r][i];
    move_other_locations(t.ranks[r], out.ranks[r]);  // hybrid traces: the other threads follow
  }
  return out;
}

}  // namespace wisp
