// The gain interval rendered. See gain_interval_report.hpp.
#include "wisp/report/gain_interval_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace wisp {

namespace {

nlohmann::json optional_seconds(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json gain_interval_json(const GainInterval& g) {
  if (!g.available) return nullptr;
  return gain_interval_json(g.low, g.high);
}

nlohmann::json gain_interval_json(double low, double high) {
  if (std::isnan(low)) return nullptr;
  return nlohmann::json::array({low, high});
}

nlohmann::json interval_json(const GainInterval& g) {
  nlohmann::json j = {{"low", g.available ? nlohmann::json(g.low) : nlohmann::json(nullptr)},
                      {"high", g.available ? nlohmann::json(g.high) : nlohmann::json(nullptr)},
                      {"fixed_costs", optional_seconds(g.fixed_costs)},
                      {"minima_model", optional_seconds(g.model_only)},
                      {"network_scaled", optional_seconds(g.network_scaled)}};
  if (g.variability.segments > 0)
    j["variability"] = {{"segments", g.variability.segments},
                        {"low", g.variability.low},
                        {"high", g.variability.high},
                        {"launch_skew", g.variability.startup}};
  else
    j["variability"] = nullptr;
  if (!g.note.empty()) j["note"] = g.note;
  return j;
}

std::string interval_text(const GainInterval& g) {
  if (!g.available) return g.note.empty() ? std::string("no gain interval") : g.note;
  std::string t = fmt::format("[{:.6f}, {:.6f}] s", g.low, g.high);
  std::string parts;
  if (g.fixed_costs) parts += fmt::format("fixed costs {:.6f} s", *g.fixed_costs);
  if (g.model_only) parts += fmt::format("{}minima model {:.6f} s", parts.empty() ? "" : ", ", *g.model_only);
  if (g.network_scaled)
    parts += fmt::format("{}residuals scaled with the network {:.6f} s", parts.empty() ? "" : ", ", *g.network_scaled);
  if (g.variability.segments > 0)
    parts += fmt::format("{}run-to-run {:+.6f}/{:+.6f} s over {} intervals, launch skew {:.6f} s included",
                         parts.empty() ? "" : ", ", g.variability.low - g.point, g.variability.high - g.point,
                         g.variability.segments, g.variability.startup);
  if (!parts.empty()) t += " (" + parts + ")";
  if (!g.note.empty()) t += "; " + g.note;
  return t;
}

}  // namespace wisp
