// Helpers shared by the generators: seeded randomness and launch offsets.
#pragma once

#include <random>

#include "wisp/generate/generators.hpp"

namespace wisp::gen {

// Seeded launch times in [0, o.launch_jitter] of `ranks` ranks (all 0 without jitter).
std::vector<double> launch_times(const CommonOptions& o, std::uint32_t ranks);
// Sets them on every rank of `model`.
void apply_launch_jitter(Model& model, const CommonOptions& o);

// Throws wisp::Error("generate <kind>: <what>") unless `ok`.
void require(bool ok, const char* kind, const std::string& what);

// The model parameters and the launch jitter are finite and in range, and the trace is of a size
// wisp can hold: at most 2^20 ranks and 10^9 events, estimated as ranks × repetitions (steps,
// iterations) × 64, so that a typo (--px 99999999) is an error, not minutes of work and no memory.
void require_sane(const CommonOptions& o, const char* kind, double ranks, double repetitions);

}  // namespace wisp::gen
