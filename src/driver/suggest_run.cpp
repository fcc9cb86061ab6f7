// `wisp suggest` below the report. See suggest_run.hpp.
#include "wisp/driver/suggest_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "wisp/driver/analysis_runner.hpp"
#include "wisp/driver/points_over_mpi.hpp"
#include "wisp/error.hpp"
#include "wisp/scenario/scenario_writer.hpp"

namespace wisp {

namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The hypothesis as a scenario file, parsed back: what runs is exactly what is written; with the
// gain interval only if asked and `base` has it (bounds are never ranked, so never with it).
Suggestion candidate(const Scenario& base, const Hypothesis& h, const fs::path& target, bool interval) {
  Suggestion s;
  s.hypothesis = h;
  Scenario scenario = hypothesis_scenario(base, h);
  scenario.replay.interval = interval && base.replay.interval && h.role != HypothesisRole::Bound;
  s.yaml = scenario_yaml(scenario);
  s.scenario = parse_scenario(s.yaml, target / "hypotheses" / (h.name + ".yaml"));
  return s;
}

// The batch over the ranks of the MPI job: rank 0 makes the identity run (its facts go into the
// report), the workers get each candidate's file and path.
void simulate_over_mpi(std::vector<Suggestion>& batch, const ScenarioTrace& in, const MpiSession& mpi,
                       IdentityRuns& identities) {
  MpiPoints work;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    work.items.push_back(i);
    const std::string key = identity_key(batch[i].scenario);
    if (!identities.count(key)) identities.emplace(key, run_identity(batch[i].scenario, in.trace));
  }
  work.identities = &identities;
  work.point = [&](std::size_t i) -> const Scenario& { return batch.at(i).scenario; };
  work.text = [&](std::size_t i) { return suggest_point_text(batch.at(i).scenario.file, batch.at(i).yaml); };
  work.on_row = [&](std::size_t i, const SweepRow& row) {
    batch.at(i).run = row;
    spdlog::info("suggest: {} done{}", batch[i].hypothesis.name, row.error.empty() ? "" : " (failed)");
  };
  work.unfinished = [](const std::vector<std::size_t>&) {};
  work.lost = [&](const std::vector<std::size_t>& running, const std::string& why) {
    throw Error(fmt::format("the MPI job ended (a rank died or was stopped) while {} hypotheses were simulated ({})",
                            running.size(), why));
  };
  schedule_points(mpi, work);
}

// Simulates every candidate of the batch. Locally, a first pass (no interval) keeps each gain's
// variability, and a second pass given `known` (the first pass's rows) replays the interval's
// hypotheses only; over MPI every candidate runs whole.
void simulate(std::vector<Suggestion>& batch, const ScenarioTrace& in, const SuggestOptions& o, const fs::path& work,
              IdentityRuns& identities, const std::vector<SweepRow>* known = nullptr) {
  if (o.mpi && o.mpi->size() > 1) return simulate_over_mpi(batch, in, *o.mpi, identities);
  std::vector<Scenario> points;
  for (const Suggestion& s : batch) points.push_back(s.scenario);
  PointsOptions options{o.jobs, false, true, {}};
  options.variability = !known;
  options.known = known;
  const std::vector<SweepRow> rows = run_points(points, in.trace, options, work, identities);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].run = rows[i];
}

// The greedy combination: the ranked hypotheses of measurable gain in order of gain, each added
// when it changes what no part changes and the combination, simulated as one scenario (point
// estimate), gains at least `step` seconds more than without it; the first that adds less ends the search.
std::optional<Suggestion> combination(const std::vector<Suggestion>& done, double step,
                                      const std::function<Suggestion(const Hypothesis&)>& simulate_one) {
  std::vector<const Suggestion*> ranked;
  for (const Suggestion& s : done)
    if (s.hypothesis.role == HypothesisRole::Ranked && s.measurable()) ranked.push_back(&s);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return a->run.gain() > b->run.gain(); });
  if (ranked.size() < 2) return std::nullopt;
  std::vector<const Hypothesis*> parts{&ranked[0]->hypothesis};
  std::vector<double> gains{ranked[0]->run.gain()};
  double gain = gains[0];
  std::optional<Suggestion> best;
  for (std::size_t j = 1; j < ranked.size(); ++j) {
    const Hypothesis& next = ranked[j]->hypothesis;
    if (!std::all_of(parts.begin(), parts.end(), [&](const Hypothesis* p) { return compatible(*p, next); })) continue;
    parts.push_back(&next);
    gains.push_back(ranked[j]->run.gain());
    Suggestion tried = simulate_one(combine(parts, gains));
    if (tried.failed() || tried.run.gain() - gain < step) break;
    gain = tried.run.gain();
    best = std::move(tried);
  }
  return best;
}

// The second pass: the candidates whose point estimate ranks them (not bounds, a gain above noise)
// (the combination among them) given the gain interval, if the base scenario has it.
void add_intervals(std::vector<Suggestion>& batch, const Scenario& base, const ScenarioTrace& in,
                   const SuggestOptions& o, const fs::path& target, const fs::path& work, IdentityRuns& identities) {
  std::vector<std::size_t> ranked;
  std::vector<Suggestion> again;
  std::vector<SweepRow> known;
  for (std::size_t i = 0; i < batch.size(); ++i)
    if (base.replay.interval && batch[i].hypothesis.role != HypothesisRole::Bound && batch[i].measurable()) {
      ranked.push_back(i);
      again.push_back(candidate(base, batch[i].hypothesis, target, true));
      known.push_back(batch[i].run);
    }
  if (again.empty()) return;
  spdlog::info("suggest: the gain interval of {} hypotheses", again.size());
  simulate(again, in, o, work, identities, &known);
  for (std::size_t k = 0; k < ranked.size(); ++k) batch[ranked[k]] = std::move(again[k]);
}

// 0: measurable gain (ranked and combined), 1: no measurable gain, 2: bounds, 3: failed.
int section(const Suggestion& s) {
  if (s.failed()) return 3;
  if (s.hypothesis.role == HypothesisRole::Bound) return 2;
  return s.measurable() ? 0 : 1;
}

void rank(std::vector<Suggestion>& all) {
  std::stable_sort(all.begin(), all.end(), [](const Suggestion& a, const Suggestion& b) {
    if (section(a) != section(b)) return section(a) < section(b);
    return section(a) < 3 && a.run.gain() > b.run.gain();
  });
}

std::string indicator_text(const Indicator& i) {
  return i.value ? fmt::format("{} = {:.6g} s", i.name, *i.value) : i.name;
}

// Each file says what it is, why it was generated and what the simulation found.
void write_files(std::vector<Suggestion>& all, const fs::path& target) {
  for (std::size_t i = 0; i < all.size(); ++i) {
    Suggestion& s = all[i];
    const Hypothesis& h = s.hypothesis;
    s.file = fmt::format("hypotheses/{:02}-{}.yaml", i + 1, h.name);
    std::replace(s.file.begin() + 11, s.file.end(), '+', '_');
    s.scenario.file = target / s.file;
    std::vector<std::string> comments{fmt::format("wisp suggest: {} ({})", h.title, to_string(h.role)),
                                      "why: " + h.reason, "proposed by " + indicator_text(h.indicator)};
    if (!h.subject.empty() && h.subject != h.short_subject)
      comments.push_back(fmt::format("{} = {}", h.short_subject, h.subject));
    for (const std::string& part : h.parts) comments.push_back("part: " + part);
    for (const Indicator& also : h.also) comments.push_back("also proposed by " + indicator_text(also));
    if (s.failed())
      comments.push_back("simulation failed: " + s.run.error);
    else
      comments.push_back(fmt::format("simulated gain {:.6g} s ({:.2f} %); rerun: wisp run {}", s.run.gain(),
                                     s.run.gain_percent(), (target / s.file).string()));
    for (std::string& c : comments) std::replace(c.begin(), c.end(), '\n', ' ');
    s.yaml = scenario_yaml(s.scenario, comments);
  }
}

void identity_facts(SuggestResult& r, const IdentityRuns& identities) {
  if (identities.empty()) return;
  const IdentityRun& id = identities.begin()->second;
  r.platform = id.platform.description;
  r.costs = id.options.anchor ? "trace-anchored" : "model only";
  r.identity = id.replay.trace.end_time();
  r.warnings = id.warnings;
}

// A scenario file's own transforms are a candidate too, ranked with the generated ones.
Hypothesis given(const Scenario& base) {
  Hypothesis h;
  h.name = base.name;
  h.title = "the scenario's own transforms";
  h.reason = "given in " + base.file.string();
  h.indicator = {"given by the user", std::nullopt};
  h.transforms = base.transforms;
  h.touches = {"*"};  // changes anything: combined with nothing
  return h;
}

}  // namespace

std::string suggest_point_text(const fs::path& file, const std::string& yaml) { return file.string() + "\n" + yaml; }

Scenario suggest_point(const std::string& text) {
  const std::size_t split = text.find('\n');
  if (split == std::string::npos) throw Error("a hypothesis sent without its file name");
  return parse_scenario(text.substr(split + 1), text.substr(0, split));
}

void serve_suggest(const MpiSession& mpi, const ScenarioTrace& in) {
  MpiPoints work;
  work.make = [](std::size_t, const std::string& text) { return suggest_point(text); };
  serve_points(mpi, in.trace, work);
}

SuggestResult suggest(const Scenario& base, const ScenarioTrace& in, const SuggestOptions& o, const fs::path& target,
                      const fs::path& work) {
  SuggestResult r;
  r.trace = in.source;
  r.measured = in.trace.end_time();
  auto t0 = std::chrono::steady_clock::now();
  spdlog::info("suggest: analysing the measured trace ({} ranks, {} events)", in.trace.rank_count(),
               in.trace.event_count());
  driver::AnalysisRunner cores;
  const TraceAnalysis analysis = analyze_trace(in.trace, hypothesis_analysis_options(), cores);
  Hypotheses hypotheses = generate_hypotheses(in.trace, analysis, o.hypotheses);
  r.skipped = hypotheses.skipped;
  if (!base.transforms.empty()) hypotheses.list.insert(hypotheses.list.begin(), given(base));
  r.timings.emplace_back("analyses and hypotheses", seconds_since(t0));
  if (hypotheses.list.empty()) {
    r.none_reason = hypotheses.none_reason;
    return r;
  }
  // Point estimates first (one replay each); then the gain interval of the rows that rank.
  std::vector<Suggestion> batch;
  for (const Hypothesis& h : hypotheses.list) batch.push_back(candidate(base, h, target, false));
  spdlog::info("suggest: {} hypotheses, {} at a time", batch.size(), o.jobs);
  t0 = std::chrono::steady_clock::now();
  IdentityRuns identities;  // made with the interval's identity replay, shared by both passes
  const Scenario first = candidate(base, hypotheses.list.front(), target, true).scenario;
  identities.emplace(identity_key(first), run_identity(first, in.trace));
  simulate(batch, in, o, work, identities);
  const double runtime = identities.begin()->second.replay.trace.end_time();
  const auto point_only = [&](const Hypothesis& h) {
    std::vector<Suggestion> one{candidate(base, h, target, false)};
    simulate(one, in, o, work, identities);
    return one.front();
  };
  if (auto combined = combination(batch, 0.01 * runtime, point_only)) batch.push_back(std::move(*combined));
  add_intervals(batch, base, in, o, target, work, identities);
  r.timings.emplace_back("simulations", seconds_since(t0));
  identity_facts(r, identities);
  rank(batch);
  write_files(batch, target);
  r.suggestions = std::move(batch);
  return r;
}

}  // namespace wisp
