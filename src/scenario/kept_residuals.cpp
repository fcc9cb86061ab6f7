// Critical-path time inside kept residuals. See kept_residuals.hpp.
#include "wisp/scenario/kept_residuals.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace wisp {

namespace {

struct Span {
  double start, end;
};

// The kept residual of every call of rank r, as spans of the scenario's time, in time order.
std::vector<Span> kept_spans(const Trace& t, const CallResiduals& residuals, Rank r) {
  std::vector<Span> out;
  if (r >= residuals.by_rank.size()) return out;
  const auto& values = residuals.by_rank[r];
  const std::vector<PartnerWait> none;
  const auto& waits = r < residuals.waits.size() ? residuals.waits[r] : none;
  std::size_t w = 0;
  const RankTrace& rt = t.ranks[r];
  for (std::size_t i = 0; i < rt.mpi_calls.size() && i < values.size(); ++i) {
    double kept = values[i];
    while (w < waits.size() && waits[w].call < i) ++w;
    if (w < waits.size() && waits[w].call == i) kept -= waits[w].dependent;
    if (kept <= 0) continue;
    const double leave = rt.events[rt.mpi_calls[i].leave].time;
    out.push_back({leave - kept, leave});
  }
  return out;
}

double overlap(const std::vector<Span>& spans, double start, double end) {
  auto it = std::lower_bound(spans.begin(), spans.end(), start, [](const Span& s, double x) { return s.end <= x; });
  double sum = 0;
  for (; it != spans.end() && it->start < end; ++it)
    sum += std::max(0.0, std::min(end, it->end) - std::max(start, it->start));
  return sum;
}

}  // namespace

std::optional<double> kept_residual_share(const Trace& scenario, const CallResiduals& residuals,
                                          const std::vector<PathSegment>& segments, double length) {
  if (segments.empty() || !(length > 0)) return std::nullopt;
  std::vector<std::vector<Span>> spans(scenario.rank_count());
  std::vector<char> built(scenario.rank_count(), 0);
  double kept = 0;
  for (const PathSegment& s : segments) {
    if (s.rank >= scenario.rank_count()) continue;
    if (!built[s.rank]) spans[s.rank] = kept_spans(scenario, residuals, s.rank), built[s.rank] = 1;
    kept += overlap(spans[s.rank], s.start, s.end);
  }
  return std::min(1.0, kept / length);
}

std::string kept_residual_warning(double share) {
  if (share <= kKeptResidualWarning) return "";
  return fmt::format(
      "{:.0f} % of the scenario's critical path is residual time kept as fixed cost of its calls "
      "(software, scheduling, noise the model does not explain): the gain rests on costs the scenario "
      "cannot move; compare with the minima-model bound of the gain interval",
      100 * share);
}

}  // namespace wisp
