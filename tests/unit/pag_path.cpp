// PAG paths as segments. See pag_path.hpp.
#include "pag_path.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "wisp/error.hpp"

namespace wisp::test {

namespace {

void append(std::vector<PathSegment>& out, const PathSegment& s, double gap) {
  if (!out.empty()) {
    PathSegment& last = out.back();
    if (last.rank == s.rank && last.callpath == s.callpath && std::abs(s.start - last.end) <= gap) {
      last.end = s.end;
      return;
    }
  }
  out.push_back(s);
}

std::vector<PathSegment> normalised(const std::vector<PathSegment>& in, double tolerance) {
  std::vector<PathSegment> out;
  for (const PathSegment& s : in)
    if (s.end - s.start >= tolerance) append(out, s, tolerance);
  return out;
}

std::string describe(const PathSegment& s) {
  return fmt::format("rank {} call path {} [{:.9f}, {:.9f}] s", s.rank, s.callpath, s.start, s.end);
}

}  // namespace

std::vector<PathSegment> path_segments(const Pag& pag, std::span<const std::uint32_t> activities) {
  if (pag.time.size() != pag.graph.vertex_count)
    throw Error("PAG paths: the graph was built without its vertex times (PagOptions::vertex_times)");
  std::vector<PathSegment> out;
  for (std::uint32_t id : activities) {
    const Activity a = pag.graph.activity(id);
    const Rank rank = pag.graph.lane_of(a.to);
    if (a.duration == 0 || rank == kNone) continue;
    const double end = pag.seconds(pag.time[a.to]);
    append(out, PathSegment{rank, a.callpath, pag.seconds(pag.time[a.to] - a.duration), end}, 0.0);
  }
  return out;
}

std::vector<PathSegment> clip_segments(const std::vector<PathSegment>& segments, double start, double end) {
  std::vector<PathSegment> out;
  for (PathSegment s : segments) {
    s.start = std::max(s.start, start);
    s.end = std::min(s.end, end);
    if (s.end > s.start) out.push_back(s);
  }
  return out;
}

std::vector<PathSegment> init_to_finalize(const Trace& trace, const std::vector<PathSegment>& segments) {
  const auto function = [&](const PathSegment& s) {
    return s.callpath < kLaunchCallpath ? trace.defs.region_of(s.callpath).mpi : MpiFunction::None;
  };
  double start = segments.empty() ? 0 : segments.front().start;
  double end = segments.empty() ? 0 : segments.back().end;
  for (const PathSegment& s : segments) {
    const MpiFunction f = function(s);
    if (f == MpiFunction::Init || f == MpiFunction::InitThread) {
      start = s.start;
      break;
    }
  }
  for (auto it = segments.rbegin(); it != segments.rend(); ++it)
    if (function(*it) == MpiFunction::Finalize) {
      end = it->start;
      break;
    }
  return clip_segments(segments, start, end);
}

std::map<std::pair<CallpathId, Rank>, double> path_profile(const std::vector<PathSegment>& segments) {
  std::map<std::pair<CallpathId, Rank>, double> out;
  for (const PathSegment& s : segments) out[{s.callpath, s.rank}] += s.end - s.start;
  return out;
}

PagCriticalPath pag_critical_path(const Pag& pag, const DenseCpm& cpm) {
  const std::vector<std::uint32_t> path = critical_path(pag.graph, cpm);
  return PagCriticalPath{pag.seconds(cpm.length), path_segments(pag, path)};
}

std::string critical_path_difference(const std::vector<PathSegment>& a, const std::vector<PathSegment>& b,
                                     double tolerance) {
  const auto x = normalised(a, tolerance), y = normalised(b, tolerance);
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    const bool same = x[i].rank == y[i].rank && x[i].callpath == y[i].callpath &&
                      std::abs(x[i].start - y[i].start) <= tolerance && std::abs(x[i].end - y[i].end) <= tolerance;
    if (!same) return fmt::format("segment {}: {} vs {}", i, describe(x[i]), describe(y[i]));
  }
  if (x.size() != y.size())
    return fmt::format("{} vs {} segments; first extra: {}", x.size(), y.size(),
                       describe(x.size() > y.size() ? x[y.size()] : y[x.size()]));
  return {};
}

}  // namespace wisp::test
