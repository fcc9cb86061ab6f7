// `wisp suggest`'s table as text and JSON. See suggest_report.hpp.
#include "wisp/report/suggest_report.hpp"

#include "wisp/report/gain_interval_report.hpp"

#include <fmt/format.h>
#include <cmath>

#include <algorithm>

#include "wisp/scenario/region_names.hpp"

namespace wisp {

namespace {

// The rank column: 1, 2, ... for hypotheses of measurable gain (the combination among them),
// "-" for those without, "bound" for upper bounds, "failed" for failed simulations.
std::string rank_label(const Suggestion& s, std::size_t& next) {
  if (s.failed()) return "failed";
  if (s.hypothesis.role == HypothesisRole::Bound) return "bound";
  return s.measurable() ? std::to_string(next++) : "-";
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json indicator_json(const Indicator& i) { return {{"name", i.name}, {"seconds", optional_json(i.value)}}; }

nlohmann::json row_json(const Suggestion& s, const std::string& rank) {
  const Hypothesis& h = s.hypothesis;
  nlohmann::json also = nlohmann::json::array();
  for (const Indicator& i : h.also) also.push_back(indicator_json(i));
  nlohmann::json j = {{"rank", rank},
                      {"role", to_string(h.role)},
                      {"name", h.name},
                      {"title", h.title},
                      {"short_name", h.short_subject},
                      {"subject", h.subject},
                      {"parts", h.parts},
                      {"file", s.file},
                      {"reason", h.reason},
                      {"indicator", indicator_json(h.indicator)},
                      {"also", also}};
  if (s.failed()) {
    j["error"] = s.run.error;
    return j;
  }
  j["measurable"] = s.measurable();
  j["scenario_runtime"] = s.run.scenario;
  j["gain_seconds"] = s.run.gain();
  j["gain_percent"] = s.run.gain_percent();
  j["gain_interval"] = gain_interval_json(s.run.interval_low, s.run.interval_high);
  j["indicator_minus_gain"] = optional_json(s.overestimate());
  j["indicator_over_gain"] = optional_json(s.ratio());
  return j;
}

std::string number(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

// The hypothesis column: as wide as the longest title, within [10, 60].
std::size_t title_width(const SuggestResult& r) {
  std::size_t w = 10;
  for (const Suggestion& s : r.suggestions) w = std::max(w, s.hypothesis.title.size());
  return std::min<std::size_t>(w, 72);
}

std::string row_text(const Suggestion& s, const std::string& rank, std::size_t width) {
  const Hypothesis& h = s.hypothesis;
  std::string t = fmt::format("{:>6}  {:<{}} {:<30} {:>10}", rank, middle_shortened(h.title, width), width,
                              middle_shortened(h.indicator.name, 30), number(h.indicator.value, "{:.4f}"));
  if (s.failed()) return t + "  failed: " + s.run.error.substr(0, s.run.error.find('\n')) + "\n";
  const std::string interval = std::isnan(s.run.interval_low)
                                   ? std::string("-")
                                   : fmt::format("[{:.4f}, {:.4f}]", s.run.interval_low, s.run.interval_high);
  return t + fmt::format("  {:>10.4f}  {:>7.2f}  {:>20}  {:>10}  {:>7}  {}\n", s.run.gain(), s.run.gain_percent(),
                         interval, number(s.overestimate(), "{:+.4f}"), number(s.ratio(), "{:.3f}"), s.file);
}

std::string header_text(const SuggestResult& r) {
  std::string t = fmt::format("wisp suggest: {}\n", r.trace);
  if (!r.platform.empty()) t += "platform      " + r.platform + "\n";
  if (r.identity > 0)
    t += fmt::format("identity      vs measured {:+.2f} % ({} costs): measured {:.6f} s, identity {:.6f} s\n",
                     100 * r.identity_error(), r.costs, r.measured, r.identity);
  for (const std::string& w : r.warnings) t += "warning: " + w + "\n";
  for (const std::string& s : r.skipped) t += "skipped: " + s + "\n";
  return t;
}

}  // namespace

nlohmann::json suggest_json(const SuggestResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  std::size_t next = 1;
  for (const Suggestion& s : r.suggestions) rows.push_back(row_json(s, rank_label(s, next)));
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& [step, seconds] : r.timings) timings[step] = seconds;
  nlohmann::json j = {
      {"schema", kSuggestSchema},
      {"trace", r.trace},
      {"platform", r.platform},
      {"costs", r.costs},
      {"runtime", {{"measured", r.measured}, {"identity", r.identity}, {"identity_error", r.identity_error()}}},
      {"warnings", r.warnings},
      {"skipped", r.skipped},
      {"hypotheses", rows},
      {"timings", timings}};
  if (!r.none_reason.empty()) j["nothing_to_suggest"] = r.none_reason;
  return j;
}

std::string suggest_text(const SuggestResult& r) {
  std::string t = header_text(r);
  if (r.suggestions.empty()) return t + "nothing to suggest: " + r.none_reason + "\n";
  const std::size_t width = title_width(r);
  t += fmt::format("\n{:>6}  {:<{}} {:<30} {:>10}  {:>10}  {:>7}  {:>20}  {:>10}  {:>7}  {}\n", "rank", "hypothesis",
                   width, "indicator", "value [s]", "gain [s]", "gain %", "gain interval [s]", "ind.-gain", "ind/gain",
                   "scenario file");
  std::size_t next = 1;
  bool no_gain_heading = false;
  for (const Suggestion& s : r.suggestions) {
    const std::string rank = rank_label(s, next);
    if (rank == "-" && !no_gain_heading) {
      t += fmt::format("{:>6}  no measurable gain (at most {} % of the run, or the whole interval <= 0):\n", "",
                       100 * Suggestion::noise_share);
      no_gain_heading = true;
    }
    t += row_text(s, rank, width);
    for (const std::string& part : s.hypothesis.parts) t += fmt::format("{:>6}    part: {}\n", "", part);
  }
  t += "\ngain = identity - scenario (simulated); ind.-gain > 0: the indicator overestimates the gain.\n"
       "Bounds (zeroing) are not ranked: no change reaches them. Rerun or refine a hypothesis with\n"
       "`wisp run FILE` (the files are in the output directory).\n";
  return t;
}

}  // namespace wisp
