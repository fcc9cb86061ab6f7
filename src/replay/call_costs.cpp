// Model-only calibration of typical call costs: the mean trace-anchored residual per (rank, MPI
// function, size class). See calibrate.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"

namespace wisp {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sorted.size())))];
}

}  // namespace

void calibrate_call_costs(const Trace& trace, Calibration& c) {
  ReplayOptions options;
  options.anchor = true;
  options.progress_interval = 0;
  options.algorithms = c.algorithms;
  Platform minima = c.platform;
  minima.mpi.call_costs.clear();
  const ReplayResult anchored = replay(trace, minima, options);
  std::map<std::tuple<RegionId, Rank, std::uint32_t>, std::vector<double>> classes;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    for (std::size_t i = 0; i < rt.mpi_calls.size(); ++i) {
      const CallSpan& call = rt.mpi_calls[i];
      const RegionId region = trace.defs.callpaths[rt.events[call.enter].callpath()].region;
      if (trace.defs.regions[region].mpi == MpiFunction::Init ||
          trace.defs.regions[region].mpi == MpiFunction::InitThread)
        continue;  // MPI_Init keeps its traced cost in every mode
      classes[{region, r, size_class(call_bytes(trace, r, call))}].push_back(
          std::max(0.0, anchored.residuals->by_rank[r][i]));
    }
  }
  c.call_costs.clear();
  c.platform.mpi.call_costs.clear();
  for (auto& [key, values] : classes) {
    const auto& [region, rank, k] = key;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values) sum += v;
    CallCost cc{trace.defs.regions[region].name,
                rank,
                k,
                values.size(),
                sum / static_cast<double>(values.size()),
                quantile(values, 0.5),
                quantile(values, 0.9),
                values.back()};
    if (cc.max == 0) continue;  // the network model explains every call of the class
    c.platform.mpi.call_costs[fmt::format("node-{}", rank)][cc.function][k] = cc.mean;
    c.call_costs.push_back(cc);
  }
}

}  // namespace wisp
