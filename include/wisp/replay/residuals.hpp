// Trace-anchored costs: the part of every traced MPI call that the platform model does not explain
// (software, scheduling, contention, noise). The anchored replay of the measured trace derives it
// call by call; scenario replays add it back as local time after the call's communication, so the
// identity reproduces the run while platform and compute changes still act (src/replay/README.md, "Costs").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/replay/platform.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// Signed residual of every MPI call, by rank and index into RankTrace::mpi_calls [s]:
//   > 0  traced time the model does not explain; replays add it after the call's communication;
//   = 0  the model explains the call (within 1 ns), or the call has no derivable cost (unmatched
//        message) and uses the model;
//   < 0  the model alone ended the call later than traced, by −value (clock skew, a model above
//        this instance's cost): the call keeps the model's time and the rank's next computation
//        is shortened by −value (not below zero). Replays add max(0, value).
//
// A residual is kept in a scenario only where the change leaves its cause alone (residual_causes.cpp):
// the part of a call's residual that ends at a partner's arrival the model does not make the call wait
// for (a send completing only once its late receiver came, a rooted collective's member held until the
// last member came) is the partner's lateness, not the call's cost. Scenario replays wait for that
// partner's simulated arrival instead, then add the rest of the residual (`waits`).
struct PartnerWait {
  std::uint32_t call = 0;          // the waiting call: index into RankTrace::mpi_calls
  Rank partner = kNone;            // the rank whose arrival the call's traced end waited for
  std::uint32_t partner_call = 0;  // the partner's call (index into its mpi_calls)
  double dependent = 0;            // seconds of the residual before that arrival: re-derived [s]
};

struct CallResiduals {
  std::vector<std::vector<double>> by_rank;
  std::vector<std::vector<PartnerWait>> waits;  // by rank, sorted by call (empty: none attributed)
  // By rank and call: the part of the traced call the network model computes as transfer and
  // per-message work (not waiting for a partner, not residual) [s]; what a platform change moves.
  std::vector<std::vector<double>> network;
};

// Every MPI call in the anchored replay, by rank and call: when it entered, and when the model
// ended its communication (before the residual); negative where the replay has none.
struct AnchoredCalls {
  std::vector<std::vector<double>> enter;
  std::vector<std::vector<double>> model_end;
};

// Splits each traced call of the anchored replay into its parts, from the measured trace and the
// anchored replay's calls. The latest partner the call depends on (its sends' receivers, its
// receives' senders, its collective's members) arrived at P, the partner call's enter in the
// anchored replay; the call entered at S, the model ended it at M, its traced end is E.
// - `waits`: a call with a residual whose model ended before that partner came and whose traced
//   end is at or after it (M < P ≤ E) waited P − M for it. A scenario replay of the unchanged trace
//   waits for the same enter and so ends the call at E, as the identity does.
// - `network`: M − P where the model waited for the partner (S < P < M), else M − S; at most the
//   traced duration (Init and Finalize: none).
void attribute_residuals(const Trace& measured, const AnchoredCalls& anchored, CallResiduals& residuals);

// The residuals as fixed local cost of their calls (no partner waits): the upper bounding cost
// hypothesis of the gain interval.
CallResiduals fixed_residuals(const CallResiduals& residuals);

// How residuals are treated differs by call class; the summary reports each separately.
enum class CallClass : std::uint8_t { PointToPoint, Collective, Completion, InitFinalize, Other };
inline constexpr int kCallClassCount = 5;
std::string_view to_string(CallClass c);
CallClass call_class(const Trace& trace, Rank rank, const CallSpan& call);

struct ResidualClass {
  std::uint64_t calls = 0;         // MPI calls of the class that communicate
  double traced = 0;               // their traced duration [s]
  double residual = 0;             // sum of positive residuals [s]
  double dependent = 0;            // the part of it that is a partner's lateness (PartnerWait) [s]
  double network = 0;              // the network model's transfer and per-message work [s]
  double waiting = 0;              // waiting for partners: traced − network − own residual [s]
  std::uint64_t model_slower = 0;  // calls whose model alone ended later than traced
  double excess = 0;               // by how much in total [s]
  std::uint64_t unmatched = 0;     // calls with an unmatched message: model only
};

struct ResidualSummary {
  std::array<ResidualClass, kCallClassCount> by_class{};
  std::uint64_t partner_waits = 0;  // calls whose residual is partly a partner's lateness
  double dependent = 0;             // seconds of residual re-derived as waiting for partners
  // Of the residual: the platform's typical excess over the fastest transfer in the receiving calls
  // (MpiCosts::typical_excess; set by the scenario layer), which a platform change replaces [s].
  double typical_excess = 0;
  ResidualClass total() const;
};

// Bytes an MPI call moves (its largest point-to-point message, or its collective buffer as
// collective_buffer() counts it): with size_class() the key of per-class costs.
std::uint64_t call_bytes(const Trace& trace, Rank rank, const CallSpan& call);

// Model-only replays: every MPI call's typical cost (MpiCosts::call_costs by host, function and
// size class; 0 where the platform has none), by rank and call, for ranks on `rank_hosts`.
std::vector<std::vector<double>> typical_call_costs(const Trace& trace, const MpiCosts& mpi,
                                                    const std::vector<std::string>& rank_hosts);

// The seconds of `rank`'s call `call`'s residual that are a partner's lateness (PartnerWait; 0:
// none). `next` walks the rank's waits in call order: start it at 0 for a loop over the rank's calls.
double partner_lateness(const CallResiduals& residuals, Rank rank, std::size_t call, std::size_t& next);

ResidualSummary summarize(const Trace& trace, const CallResiduals& residuals);

// One line per class with calls, and the fall-backs ("... use the model"), for terminals.
std::string residual_text(const ResidualSummary& s);

}  // namespace wisp
