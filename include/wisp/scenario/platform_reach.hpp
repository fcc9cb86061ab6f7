// What a platform change can move. With trace-anchored costs every MPI call keeps its traced cost
// split into parts (attribute_residuals): the network model's transfer and per-message work, which
// a platform change moves; waiting for partners, which the replay re-derives; MPI_Init and
// MPI_Finalize, kept as traced; and the residual no network explains, kept as measured but for the
// network's typical part (network_scaling.hpp). Said for
// every platform what-if, and warned about when the residual outweighs the network's part.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wisp/replay/platform.hpp"
#include "wisp/replay/residuals.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp {

struct PlatformReach {
  double traced = 0;         // traced duration of the MPI calls that communicate, Init and Finalize included [s]
  double network = 0;        // transfer and per-message work the network model computes: the reach [s]
  double waiting = 0;        // waiting for a partner: re-derived by the replay from the partners' timing [s]
  double init_finalize = 0;  // MPI_Init and MPI_Finalize: kept as traced [s]
  double residual = 0;       // what no network explains (software, scheduling, noise): kept as measured [s] ...
  double typical = 0;        // ... but for the source network's typical part (excess over the fastest transfer,
                             // eager copy, a typed network's share, a collective's rounds' share), which a
                             // platform change replaces by the target's [s]
  double share() const { return traced > 0 ? network / traced : 0; }
  // The network's part of the calls' own cost (network and residual, not waiting), its typical part in
  // the residual included: how much of what the calls cost a platform change moves.
  double explained() const { return network + residual > 0 ? (network + typical) / (network + residual) : 1; }
};

// Whether the scenario changes the platform: a platform transform, or a sweep over one.
bool changes_platform(const Scenario& scenario);
// The reach of the identity's residuals (none without them: model-only costs move everything).
std::optional<PlatformReach> platform_reach(const std::optional<ResidualSummary>& residuals);
// "platform changes act on the network's part of the traced MPI time: ..." with every part, for the reports.
std::string platform_reach_text(const PlatformReach& reach);
// One line (without "warning: ") when the residual outweighs the network's part, else empty.
std::string platform_reach_warning(const PlatformReach& reach);
// One line (without "warning: ") when a platform change starts from a network calibrated on one
// message size (Platform::network_one_size), else empty: there the fit cannot tell the network
// from the transport's protocol and software, and the cure is to describe the source too.
std::string one_size_source_warning(const Platform& source);

// "ideal network (POP's T_ideal) transfers and MPI calls take no time: 4.919874 s (-0.275697 s
// against the identity)" and the infinitely fast network's line, for those given.
std::vector<std::string> ideal_network_lines(const std::optional<double>& pop, const std::optional<double>& fast,
                                             double identity);

}  // namespace wisp
