// `wisp suggest`'s runner: analyse the measured trace, generate hypotheses from the
// analyses (hypotheses.hpp), simulate every one against one shared identity replay in worker
// processes (sweep.hpp's run_points), combine the best two compatible ones, and rank by gain.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/driver/mpi_pool.hpp"
#include "wisp/driver/sweep_run.hpp"
#include "wisp/scenario/suggestion.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp {

struct SuggestOptions {
  int jobs = 1;                     // worker processes at a time (without MPI, or mpirun -n 1)
  const MpiSession* mpi = nullptr;  // rank 0 of a job of several ranks: the candidates go to the others
  HypothesisOptions hypotheses;
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
