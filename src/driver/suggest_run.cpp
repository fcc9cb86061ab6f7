// `wisp suggest` below the report. See suggest_run.hpp.
#include "wisp/driver/suggest_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "wisp/driver/points_over_mpi.hpp"
#include "wisp/error.hpp"
#include "wisp/scenario/scenario_writer.hpp"

namespace wisp {

namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The hypothesis as a scenario file, parsed back: what runs is exactly what is written.
Suggestion candidate(const Scenario& base, const Hypothesis& h, const fs::path& target) {
  Suggestion s;
  s.hypothesis = h;
  s.yaml = scenario_yaml(hypothesis_scenario(base, h));
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

void simulate(std::vector<Suggestion>& batch, const ScenarioTrace& in, const SuggestOptions& o, const fs::path& work,
              IdentityRuns& identities) {
  if (o.mpi && o.mpi->size() > 1) return simulate_over_mpi(batch, in, *o.mpi, identities);
  std::vector<Scenario> points;
  for (const Suggestion& s : batch) points.push_back(s.scenario);
  const std::vector<SweepRow> rows =
      run_points(points, in.trace, PointsOptions{o.jobs, false, true, {}}, work, identities);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].run = rows[i];
}

// The best ranked hypothesis with a positive gain and the best one compatible with it.
std::optional<Hypothesis> best_pair(const std::vector<Suggestion>& done) {
  std::vector<const Suggestion*> ranked;
  for (const Suggestion& s : done)
    if (s.hypothesis.role == HypothesisRole::Ranked && !s.failed() && s.run.gain() > 0) ranked.push_back(&s);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return a->run.gain() > b->run.gain(); });
  for (std::size_t j = 1; j < ranked.size(); ++j)
    if (compatible(ranked[0]->hypothesis, ranked[j]->hypothesis))
      return combine(ranked[0]->hypothesis, ranked[0]->run.gain(), ranked[j]->hypothesis, ranked[j]->run.gain());
  return std::nullopt;
}

int section(const Suggestion& s) {
  switch (s.hypothesis.role) {
    case HypothesisRole::Ranked:
      return 0;
    case HypothesisRole::Combined:
      return 1;
    case HypothesisRole::Bound:
      return 2;
  }
  return 3;
}

void rank(std::vector<Suggestion>& all) {
  std::stable_sort(all.begin(), all.end(), [](const Suggestion& a, const Suggestion& b) {
    if (section(a) != section(b)) return section(a) < section(b);
    if (a.failed() != b.failed()) return b.failed();
    return !a.failed() && a.run.gain() > b.run.gain();
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
    for (const Indicator& also : h.also) comments.push_back("also proposed by " + indicator_text(also));
    if (s.failed())
      comments.push_back("simulation failed: " + s.run.error);
    else
      comments.push_back(fmt::format("simulated gain {:.6g} s ({:.2f} %); rerun: wisp run {}", s.run.gain(),
                                     s.run.gain_percent(), s.file));
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
  const TraceAnalysis analysis = analyze_trace(in.trace, hypothesis_analysis_options());
  Hypotheses hypotheses = generate_hypotheses(in.trace, analysis, o.hypotheses);
  if (!base.transforms.empty()) hypotheses.list.insert(hypotheses.list.begin(), given(base));
  r.timings.emplace_back("analyses and hypotheses", seconds_since(t0));
  if (hypotheses.list.empty()) {
    r.none_reason = hypotheses.none_reason;
    return r;
  }
  std::vector<Suggestion> batch;
  for (const Hypothesis& h : hypotheses.list) batch.push_back(candidate(base, h, target));
  spdlog::info("suggest: {} hypotheses, {} at a time", batch.size(), o.jobs);
  t0 = std::chrono::steady_clock::now();
  IdentityRuns identities;
  simulate(batch, in, o, work, identities);
  if (const auto pair = best_pair(batch)) {
    std::vector<Suggestion> combined{candidate(base, *pair, target)};
    simulate(combined, in, o, work, identities);
    batch.push_back(combined.front());
  }
  r.timings.emplace_back("simulations", seconds_since(t0));
  identity_facts(r, identities);
  rank(batch);
  write_files(batch, target);
  r.suggestions = std::move(batch);
  return r;
}

}  // namespace wisp
