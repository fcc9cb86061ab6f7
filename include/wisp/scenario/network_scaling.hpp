// What a platform change does to the residuals (what no network model explains in a call). At the
// point, the source network's typical part (its excess over the fastest transfer, its eager sends'
// per-byte copy; a network typed in numbers: the share its latency and bandwidth hold) goes and the
// target's comes; the rest is kept as measured. The gain interval's third reading scales the whole residual with the
// network, as the call's one-way message cost does from source to target: on a real network change
// much of it goes with the old network (TCP's socket work), so both readings bound it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/replay/platform.hpp"
#include "wisp/replay/residuals.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp {

// A platform with the host of every rank on it (planned_hosts, replay.hpp). With a calibration
// inside its hosts (Platform::intra_calibration) and the hosts known, a call whose messages all stay
// on their host is priced by that calibration and moves its network; every other call, the
// platform's own. A placement change on such a platform therefore moves networks as a platform
// change does.
struct PlacedPlatform {
  PlacedPlatform(const Platform& p, std::vector<std::size_t> on = {}) : platform(p), hosts(std::move(on)) {}
  const Platform& platform;
  std::vector<std::size_t> hosts;  // by rank; empty: every call on `platform`'s network
};

// A platform's network in numbers, what-if factors applied: the mean end-to-end latency of its
// routes [s] and their bandwidth [bytes/s] (a crossbar's per-host links: mean of the up plus the
// down link, the lower mean bandwidth). Generated platforms and `wisp calibrate` crossbar files;
// nothing for any other SimGrid file.
struct NetworkNumbers {
  double latency = 0, bandwidth = 0;
};
std::optional<NetworkNumbers> network_numbers(const Platform& platform);

// A network typed in numbers: a crossbar whose network is one latency and one bandwidth (network_numbers;
// no network inside the nodes), without the measured parts of `wisp calibrate` (typical excess, eager
// copy, per-message overheads, call costs, size factors). As in Dimemas and a ping-pong's one-way time, its latency
// holds the processors' work for a message as well as its flight; the calls hold that work as residual.
std::optional<NetworkNumbers> typed_network(const Platform& platform);

// One message of `bytes` from a call of `function`, end to end (LogGP's one-way time) [s]: its send
// overhead (the platform's per message, else the function's) + latency + bytes / bandwidth + the
// platform's per-message receive overhead (none without one).
double message_cost(const Platform& platform, const NetworkNumbers& network, const std::string& function,
                    std::uint64_t bytes);

// The residuals with every communicating call's own cost (its residual beyond a partner's
// lateness) multiplied by message_cost on `target` over message_cost on `source`, for the call's
// function and bytes (call_bytes). MPI_Init, MPI_Finalize and calls without communication keep
// theirs, as does a negative residual (the catch-up of a call the model ended late). Nothing when
// either platform has no network in numbers.
std::optional<CallResiduals> residuals_scaled_with_network(const Trace& trace, const CallResiduals& residuals,
                                                           const PlacedPlatform& source, const PlacedPlatform& target);

// What a platform change does to the residuals at the point: every call changes by its typical
// network part on `target` minus that on `source`, losing at most its residual beyond a partner's
// lateness: the typical excess (MpiCosts::typical_excess) of the messages it receives (a receive, a
// completed receive request, a collective's rounds) and the eager copy (MpiCosts::eager_copy) of
// those it sends, none where the platform sends them by rendezvous. The typical network cost goes
// with the network, the rest stays. On a network typed in numbers the typical part is the share its
// numbers hold (latency per message sent, bytes / bandwidth per message received); between two such
// networks that share of the call's residual scales from source to target instead (a call without
// residual keeps none). On a calibrated source (without a network in numbers inside its nodes) that
// found a latency, a collective's rounds are priced rounds x (L + b/B) as calibration prices them, and a
// member's own cost in it (the rounds' work: sending, progressing the transport, combining; at most
// its call path's median on its rank) scales with that price to the target's (towards a network typed
// in numbers, whose part holds it, it goes).
// MPI_Init, MPI_Finalize and negative residuals stay as they are. Nothing when neither platform has a
// typical part.
std::optional<CallResiduals> residuals_with_typical_network(const Trace& trace, const CallResiduals& residuals,
                                                            const PlacedPlatform& source, const PlacedPlatform& target);

// How much of the residuals is `platform`'s typical network part: over the calls, the smaller of a
// call's own residual and its typical network part (a collective's on a calibrated network: all of
// it) [s] (0 without one).
double typical_excess_seconds(const Trace& trace, const CallResiduals& residuals, const PlacedPlatform& platform);

}  // namespace wisp
