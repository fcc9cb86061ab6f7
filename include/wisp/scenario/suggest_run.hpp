// `wisp suggest` below the report: analyse the measured trace, generate hypotheses from the
// analyses (hypotheses.hpp), simulate every one against one shared identity replay in worker
// processes (sweep.hpp's run_points), combine the best two compatible ones, and rank by gain.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/io/mpi_pool.hpp"
#include "wisp/scenario/hypotheses.hpp"
#include "wisp/scenario/sweep.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp {

struct Suggestion {
  Hypothesis hypothesis;
  Scenario scenario;   // as it ran: parsed back from `yaml`
  std::string yaml;    // the scenario file (hypotheses/NN-name.yaml): as simulated, then with the findings as comments
  std::string file;    // its path relative to the output directory
  SweepRow run;        // runtimes, or why the candidate failed (its error)
  bool failed() const { return !run.error.empty(); }
  // The indicator's prediction minus the simulated gain (> 0: it overestimates), and their ratio
  // (none for gains under 0.01 % of the run, whose ratio says nothing).
  std::optional<double> overestimate() const;
  std::optional<double> ratio() const;
};

struct SuggestOptions {
  int jobs = 1;                      // worker processes at a time (without MPI, or mpirun -n 1)
  const MpiSession* mpi = nullptr;   // rank 0 of a job of several ranks: the candidates go to the others
  HypothesisOptions hypotheses;
};

struct SuggestResult {
  std::string trace;          // where the trace came from (path or generate command)
  std::string platform;       // the identity platform, one line
  std::string costs;          // "trace-anchored" or "model only"
  double measured = 0;        // runtime of the measured trace [s]
  double identity = 0;        // simulated runtime of the unmodified trace [s]
  std::vector<std::string> warnings;   // how far to trust the identity, as `wisp run` gives them
  std::vector<Suggestion> suggestions; // ranked by gain, then the combination, then the bounds
  std::string none_reason;    // why there is nothing to suggest (no suggestions)
  std::vector<std::pair<std::string, double>> timings;  // wall seconds per step
  double identity_error() const { return wisp::identity_error(measured, identity); }
};

// A scenario with transforms adds them as one more candidate ("given by the user").
// `target`: the output directory the hypothesis files will be in (their paths in messages);
// `work`: a directory for the workers (left empty).
SuggestResult suggest(const Scenario& base, const ScenarioTrace& in, const SuggestOptions& options,
                      const std::filesystem::path& target, const std::filesystem::path& work);
// The other ranks of an MPI job under `wisp suggest`: simulate the candidates rank 0 sends (their
// files as text) until it releases them (mpi_release).
void serve_suggest(const MpiSession& mpi, const ScenarioTrace& in);
// What a worker is sent for a candidate, and the candidate made from it.
std::string suggest_point_text(const std::filesystem::path& file, const std::string& yaml);
Scenario suggest_point(const std::string& text);

}  // namespace wisp
