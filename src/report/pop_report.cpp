// Report of the POP factors. See pop_report.hpp.
#include "wisp/report/pop_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wisp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
  j["ideal_runtime_source"] = a.ideal_source;
  j["clock_replay_ideal_runtime"] = a.replay_ideal;
  j["mean_useful"] = a.whole.mean_useful;
  j["max_useful"] = a.whole.max_useful;
  if (a.hybrid)
    j["hybrid"] = {{"hybrid_parallel_efficiency", a.hybrid->hybrid_parallel_efficiency},
                   {"mpi_parallel_efficiency", a.hybrid->mpi_parallel_efficiency},
                   {"mpi_load_balance", a.hybrid->mpi_load_balance},
                   {"mpi_communication_efficiency", a.hybrid->mpi_communication_efficiency},
                   {"openmp_parallel_efficiency", a.hybrid->openmp_parallel_efficiency},
                   {"threads", a.hybrid->threads}};
  if (a.window_options) {
    j["window_length"] = a.window_options->length;
    j["window_min_events"] = a.window_options->min_events;
  }
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

std::string pop_text(const PopAnalysis& a, std::size_t top) {
  const PopFactors& f = a.whole;
  std::string out = fmt::format(
      "POP efficiency factors (paper 003): elapsed {:.6f} s, ideal network (transfers and MPI calls take no "
      "time) {:.6f} s ({})\n",
      f.elapsed, f.ideal, a.ideal_source);
  out += fmt::format("  parallel efficiency        {}\n", percent(f.parallel_efficiency));
  out += fmt::format("    load balance             {}\n", percent(f.load_balance));
  out += fmt::format("    communication efficiency {}\n", percent(f.communication_efficiency));
  out += fmt::format("      serialisation          {}\n", percent(f.serialisation));
  out += fmt::format("      transfer               {}\n", percent(f.transfer));
  if (a.external_ideal) out += fmt::format("  (the clock replay's ideal network: {:.6f} s)\n", a.replay_ideal);
  if (const auto& h = a.hybrid) {
    out += fmt::format("  hybrid ({} threads): hybrid parallel efficiency {}\n", h->threads,
                       percent(h->hybrid_parallel_efficiency));
    out += fmt::format("    MPI parallel efficiency  {} (load balance {}, communication {})\n",
                       percent(h->mpi_parallel_efficiency), percent(h->mpi_load_balance),
                       percent(h->mpi_communication_efficiency));
    out += fmt::format("    OpenMP parallel efficiency {}\n", percent(h->openmp_parallel_efficiency));
  }
  return out + pop_windows_text(a, top);
}

namespace {

// Smallest, median and largest defined value of one factor over the windows.
std::string spread(const std::vector<PopWindow>& windows, double PopFactors::*factor) {
  std::vector<double> v;
  for (const PopWindow& w : windows)
    if (std::isfinite(w.factors.*factor)) v.push_back(w.factors.*factor);
  if (v.empty()) return fmt::format("{0} {0} {0}", percent(kNaN));
  std::sort(v.begin(), v.end());
  return fmt::format("{} {} {}", percent(v.front()), percent(v[v.size() / 2]), percent(v.back()));
}

std::string window_row(const PopWindow& w) {
  return fmt::format("    {:>12.6f} {:>12.6f}  {} {} {} {}  {:>6}\n", w.start, w.end, percent(w.factors.load_balance),
                     percent(w.factors.serialisation), percent(w.factors.transfer),
                     percent(w.factors.parallel_efficiency), w.min_events);
}

}  // namespace

std::string pop_windows_text(const PopAnalysis& a, std::size_t top) {
  if (a.windows.empty()) return {};
  std::string out;
  const WindowOptions& o = *a.window_options;
  if (o.min_events > 0)
    out += fmt::format("  {} time windows: {:.6f} s windows merged until every rank has {} MPI events in each\n",
                       a.windows.size(), o.length, o.min_events);
  else
    out += fmt::format("  {} time windows of {:.6f} s\n", a.windows.size(), o.length);
  out += fmt::format("    {:<22} {:>9} {:>9} {:>9}\n", "over the windows", "min", "median", "max");
  out += fmt::format("    {:<22} {}\n", "load balance", spread(a.windows, &PopFactors::load_balance));
  out += fmt::format("    {:<22} {}\n", "serialisation", spread(a.windows, &PopFactors::serialisation));
  out += fmt::format("    {:<22} {}\n", "transfer", spread(a.windows, &PopFactors::transfer));
  out += fmt::format("    {:<22} {}\n", "parallel efficiency", spread(a.windows, &PopFactors::parallel_efficiency));
  const auto above = std::count_if(a.windows.begin(), a.windows.end(),
                                   [](const PopWindow& w) { return w.factors.serialisation > 1 + 1e-9; });
  if (above > 0)
    out += fmt::format(
        "    serialisation above 100 % in {} window{}: the ideal network's critical path moved to another rank "
        "inside {} (its T_ideal there is shorter than the busiest rank's useful time; the windows' T_ideal add up "
        "to the run's, and the whole-run factors above are exact; Haldar, paper 003 section 3.2)\n",
        above, above == 1 ? "" : "s", above == 1 ? "it" : "them");
  // The windows with the lowest parallel efficiency, in time order.
  std::vector<const PopWindow*> worst;
  for (const PopWindow& w : a.windows) worst.push_back(&w);
  const auto pe = [](const PopWindow* w) {
    return std::isfinite(w->factors.parallel_efficiency) ? w->factors.parallel_efficiency : 2.0;
  };
  std::stable_sort(worst.begin(), worst.end(), [&](const PopWindow* x, const PopWindow* y) { return pe(x) < pe(y); });
  worst.resize(std::min(worst.size(), top));
  std::sort(worst.begin(), worst.end(), [](const PopWindow* x, const PopWindow* y) { return x->start < y->start; });
  out += fmt::format("    {} with the lowest parallel efficiency (all of them in --json and pop_windows.csv):\n",
                     worst.size() == a.windows.size() ? "windows" : fmt::format("the {} windows", worst.size()));
  out += fmt::format("    {:>12} {:>12}  {:>9} {:>9} {:>9} {:>9}  {:>6}\n", "start [s]", "end [s]", "LB", "Ser", "Trf",
                     "PE", "events");
  for (const PopWindow* w : worst) out += window_row(*w);
  return out;
}

}  // namespace wisp
