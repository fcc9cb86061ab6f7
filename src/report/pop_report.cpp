// Report of the POP factors. See pop_report.hpp.
#include "wisp/report/pop_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace wisp {

namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

std::string csv_number(double x) { return std::isfinite(x) ? fmt::format("{:.9g}", x) : std::string(); }

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:7.2f} %", 100 * x) : "      -  "; }

nlohmann::json factors_json(const PopFactors& f) {
  return {{"load_balance", number(f.load_balance)},
          {"serialisation", number(f.serialisation)},
          {"transfer", number(f.transfer)},
          {"parallel_efficiency", number(f.parallel_efficiency)},
          {"communication_efficiency", number(f.communication_efficiency)}};
}

}  // namespace

nlohmann::json pop_json(const PopAnalysis& a) {
  nlohmann::json j = factors_json(a.whole);
  j["elapsed"] = a.whole.elapsed;
  j["ideal_runtime"] = a.whole.ideal;
  j["ideal_runtime_source"] = a.external_ideal ? "external" : "clock replay";
  j["clock_replay_ideal_runtime"] = a.replay_ideal;
  j["mean_useful"] = a.whole.mean_useful;
  j["max_useful"] = a.whole.max_useful;
  j["windows"] = nlohmann::json::array();
  for (const PopWindow& w : a.windows) {
    nlohmann::json row = {{"start", w.start}, {"end", w.end}};
    row.update(factors_json(w.factors));
    row["ideal"] = w.factors.ideal;
    row["mean_useful"] = w.factors.mean_useful;
    row["max_useful"] = w.factors.max_useful;
    row["min_events"] = w.min_events;
    j["windows"].push_back(std::move(row));
  }
  return j;
}

std::string pop_windows_csv(const std::vector<PopWindow>& windows) {
  std::string out =
      "start,end,load_balance,serialisation,transfer,parallel_efficiency,communication_efficiency,"
      "ideal,mean_useful,max_useful,min_events\n";
  for (const PopWindow& w : windows) {
    const PopFactors& f = w.factors;
    out += fmt::format("{:.9f},{:.9f},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{}\n", w.start, w.end,
                       csv_number(f.load_balance), csv_number(f.serialisation), csv_number(f.transfer),
                       csv_number(f.parallel_efficiency), csv_number(f.communication_efficiency), f.ideal,
                       f.mean_useful, f.max_useful, w.min_events);
  }
  return out;
}

std::string pop_text(const PopAnalysis& a) {
  const PopFactors& f = a.whole;
  std::string out = fmt::format("POP efficiency factors (paper 003): elapsed {:.6f} s, ideal network {:.6f} s ({})\n",
                                f.elapsed, f.ideal, a.external_ideal ? "external replay" : "clock replay");
  out += fmt::format("  parallel efficiency        {}\n", percent(f.parallel_efficiency));
  out += fmt::format("    load balance             {}\n", percent(f.load_balance));
  out += fmt::format("    communication efficiency {}\n", percent(f.communication_efficiency));
  out += fmt::format("      serialisation          {}\n", percent(f.serialisation));
  out += fmt::format("      transfer               {}\n", percent(f.transfer));
  if (a.windows.empty()) return out;
  out += fmt::format("  {} time windows:\n  {:>12} {:>12}  {:>9} {:>9} {:>9} {:>9}  {:>6}\n", a.windows.size(),
                     "start [s]", "end [s]", "LB", "Ser", "Trf", "PE", "events");
  for (const PopWindow& w : a.windows)
    out += fmt::format("  {:>12.6f} {:>12.6f}  {} {} {} {}  {:>6}\n", w.start, w.end, percent(w.factors.load_balance),
                       percent(w.factors.serialisation), percent(w.factors.transfer),
                       percent(w.factors.parallel_efficiency), w.min_events);
  return out;
}

}  // namespace wisp
