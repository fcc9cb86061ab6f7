// The tests' reference for POP's T_ideal: the ideal-network clock replay of paper 003 §3.1: extended Lamport clocks
// that advance only outside MPI and take the maximum over MPI dependencies, with zero transfer time. A message is a
// dependency send start -> receive completion; a message above the eager limit also makes the send
// wait for its receive to be posted; collectives synchronise their members as their class says.
// Computed as the longest path of the program activity graph (EagerLimit rule) with every activity
// at zero duration except computation. Serves POP's serialisation and transfer efficiency. The
// graph is either a PAG of its own or the ideal variant of the analysis PAG
// (PagOptions::ideal_eager_limit), which spares building a second one.
#pragma once

#include <cstdint>
#include <vector>

#include "wisp/analysis/pag.hpp"

namespace wisp::test {

// The clock of every vertex of `pag`'s ideal variant (pag.ideal_variant != 0); returns the largest.
Ticks ideal_network_clock(const Pag& pag, std::vector<Ticks>& clock);

struct IdealNetworkReplay {
  Pag pag;                   // the dependency graph (RendezvousRule::EagerLimit)
  std::vector<Ticks> clock;  // per vertex: ideal-network clock (every rank starts at 0)
  double runtime = 0;        // seconds: the largest clock, the run on an ideal network

  double clock_at(Rank r, EventIndex e) const { return pag.seconds(clock[pag.vertex(r, e)]); }
};

// On a PAG of its own.
IdealNetworkReplay ideal_network_replay(const Trace& trace, std::uint64_t eager_limit = 65536);

}  // namespace wisp::test
