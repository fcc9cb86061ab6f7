// `wisp simulate`'s text. See simulation_report.hpp.
#include "wisp/report/simulation_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/replay/trust.hpp"

namespace wisp {

namespace {

std::string percent(double measured, double simulated) {
  if (measured == 0) return simulated == 0 ? "+0.00 %" : "n/a";
  return fmt::format("{:+.2f} %", (simulated - measured) / measured * 100);
}

}  // namespace

std::string simulation_setup_text(const std::string& platform, const Calibration* c, const ReplayOptions& o) {
  std::string out;
  if (c)
    out += fmt::format(
        "platform     calibrated from the trace: L {:.3f} us, B {:.4g} GB/s, eager threshold {} bytes "
        "{}(see wisp calibrate)\n",
        c->latency * 1e6, c->bandwidth / 1e9, c->eager_threshold,
        c->call_costs.empty() ? "" : "typical call costs per rank, function and size class ");
  else
    out += fmt::format("platform     {}\n", platform);
  out += fmt::format("collectives  {}\n", format_collective_algorithms(o.algorithms));
  out += fmt::format("costs        {}\n", o.anchor ? "trace-anchored (each MPI call keeps its traced cost; "
                                                     "the platform model computes its part)"
                                                   : "model only (the platform's costs)");
  return out;
}

std::string simulation_comparison_text(const Trace& trace, const ReplayResult& result,
                                       const ResidualSummary* residuals) {
  std::string out = fmt::format("{:<8} {:>16} {:>16} {:>10}\n", "rank", "measured [s]", "simulated [s]", "error");
  double measured_total = 0;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& ev = trace.ranks[r].events;
    const double measured = ev.empty() ? 0 : ev.back().time;
    measured_total = std::max(measured_total, measured);
    out += fmt::format("{:<8} {:>16.9f} {:>16.9f} {:>10}\n", r, measured, result.rank_end[r],
                       percent(measured, result.rank_end[r]));
  }
  out += fmt::format("{:<8} {:>16.9f} {:>16.9f} {:>10}\n", "total", measured_total, result.runtime,
                     percent(measured_total, result.runtime));
  out += fmt::format("identity error {:+.2f} % (simulated vs measured runtime)\n",
                     100 * identity_error(measured_total, result.runtime));
  if (residuals) (out += "residuals (traced MPI time the model does not explain)\n") += residual_text(*residuals);
  return out;
}

}  // namespace wisp
