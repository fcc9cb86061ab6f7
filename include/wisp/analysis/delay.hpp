// Delay analysis (paper 004 §IV): which call paths on which ranks caused the wait states, and at
// what cost (short-term: the direct wait states; long-term: those propagated further).
//
// For every attributable wait state, the delayer's and the waiter's time per call path since their previous
// synchronisation point with each other give the delay vector d = t_delayer - w_delayer - t_waiter
// (waiting time removed; the previous point's own call counts only with its completion time).
// Negative elements are set to zero and the positive ones scaled to keep the sum D = Σ d
// (the negative-element heuristic). The wait W and the costs C it has accumulated from later wait
// states are split in proportion D : Ws, Ws being the delayer's own waiting time in the interval:
//   short-term cost on the delayer's call path c:  W · D/(D+Ws) · d_c/Σd⁺
//   long-term cost on c:                           C · D/(D+Ws) · d_c/Σd⁺
//   propagated to each wait state j of the delayer in the interval: (W + C) · Ws/(D+Ws) · w_j/Ws
// processed in a backward replay, so every wait state's costs are complete before it is split.
// Long-term costs keep the kind of the wait state where the waiting finally happened (Scalasca).
// Accounting: Σ short + Σ long + unattributed = total attributable waiting time, where a wait
// state is unattributed (with the costs it carries) when D <= 0 and Ws = 0: the delayer has
// nothing to blame (and, under Scalasca's rules, what a clipped scale drops). Wait at
// MPI_Finalize and Early Scan are not attributable (as in Scalasca). Scalasca's own rules differ
// in details from the paper's and are the default (DelayRules below).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "wisp/analysis/callpath_matrix.hpp"
#include "wisp/analysis/sync_graph.hpp"
#include "wisp/analysis/wait_states.hpp"

namespace wisp {

// Delay cost categories = the attributable wait kinds, in WaitKind order.
inline constexpr int kDelayCategoryCount = 6;
std::string_view short_term_metric(WaitKind k);       // delay_latesender, delay_latereceiver, delay_n2n,
                                                      // delay_barrier, delay_12n, delay_n21
std::string_view long_term_metric(WaitKind k);        // the same with "_longterm"
std::string_view aggregate_delay_metric(WaitKind k);  // the two summed: delay_latesender_aggregate, ...
std::string_view direct_wait_metric(WaitKind k);      // mpi_wait_direct_latesender, ...
std::string_view indirect_wait_metric(WaitKind k);    // mpi_wait_indirect_latesender, ...

// Which rules split a wait state's costs (src/analysis/README.md, "Delay costs").
//   Scalasca (default, as Scalasca 2.6's scout computes them): d⁺_c = max(d_c, 0) over the delayer's
//     call paths only, S = Σ d⁺; a point-to-point wait W passes min(W / (S + Ws), 1) of itself on
//     (the rest is dropped), a collective's W / (S + Ws); carried costs C / (S + Ws), unclipped; a
//     Late Receiver's waiting send has completion time min(0, leave(send) − leave(request)).
//   Paper (004 as written): the negative-element heuristic over all call paths, D = max(Σ d, 0),
//     and W and C split exactly in proportion D : Ws (nothing is dropped).
enum class DelayRules : std::uint8_t { Scalasca, Paper };
std::string_view to_string(DelayRules r);

struct DelayCosts {
  DelayRules rules = DelayRules::Scalasca;
  std::array<CallpathMatrix, kDelayCategoryCount> short_term;     // on the delayer's (call path, rank)
  std::array<CallpathMatrix, kDelayCategoryCount> long_term;      // on the delayer's (call path, rank)
  std::array<CallpathMatrix, kDelayCategoryCount> direct_wait;    // on the waiter's (call path, rank)
  std::array<CallpathMatrix, kDelayCategoryCount> indirect_wait;  // on the waiter's (call path, rank)
  // Late Sender [0] and Late Receiver [1] waiting time that causes point-to-point waits on other
  // ranks (Scalasca's propagating wait states), on the waiter's (call path, rank).
  std::array<CallpathMatrix, 2> propagating;
  double total_wait = 0;  // waiting time of all attributable wait states
  double short_sum = 0;
  double long_sum = 0;
  double unattributed = 0;  // waiting time and carried costs with nothing to blame
  std::uint64_t unattributed_waits = 0;
  std::uint64_t cycles_broken = 0;  // backward-replay dependency cycles (inconsistent traces)
};

// One backward replay, whatever group it runs in (as Scalasca's): each process replays its own
// ranks (Trace::share; all of them in a group of one), and a wait state whose two sides are on two
// processes crosses between them, in rounds of at most about `round_bytes` sent per process (a
// rank with more to send goes on next round). The sums and counts are whole on every process, the
// matrices hold this process's ranks (the others' zero). A whole trace is replayed whole.
inline constexpr std::size_t kReleaseRoundBytes = std::size_t{8} << 20;
DelayCosts analyze_delays(const Trace& trace, const WaitStates& waits, const SyncGraph& graph, DelayRules rules,
                          ProcessGroup& group, std::size_t round_bytes = kReleaseRoundBytes);
DelayCosts analyze_delays(const Trace& trace, const WaitStates& waits, const SyncGraph& graph,
                          DelayRules rules = DelayRules::Scalasca);  // in a group of one

}  // namespace wisp
