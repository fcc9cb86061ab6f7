// The wait-path analysis: runs the analyses in dependency order. See wait_path_analysis.hpp.
#include "wisp/analysis/wait_path_analysis.hpp"

#include "wisp/analysis/call_index.hpp"
#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/analysis/sync_graph.hpp"
#include "wisp/analysis/time_tree.hpp"

namespace wisp {

namespace {

// Every process's rows of every matrix of a spread analysis.
void gather_all_rows(WaitPathAnalysis& a, const Trace& trace, ProcessGroup& group) {
  const std::vector<RankShare> shares = gather_shares(group, *trace.share);
  for (CallpathMatrix* m : {&a.profile.time, &a.profile.visits, &a.openmp.ibarrier, &a.openmp.ebarrier, &a.openmp.idle,
                            &a.critical_path.profile})
    gather_rows(*m, group, shares);
  for (CallpathMatrix& m : a.profile.messages) gather_rows(m, group, shares);
  WrongOrder& wo = a.waits.wrong_order;
  for (CallpathMatrix* m :
       {&a.waits.barrier_completion, &a.waits.nxn_completion, &a.waits.init_completion, &a.waits.late_sender_syncs,
        &a.waits.late_receiver_syncs, &wo.different, &wo.same, &wo.communications, &wo.synchronizations})
    gather_rows(*m, group, shares);
  for (int k = 0; k < kWaitKindCount; ++k) {
    gather_rows(a.waits.seconds[k], group, shares);
    gather_rows(a.waits.counts[k], group, shares);
  }
  for (int k = 0; k < kDelayCategoryCount; ++k)
    for (CallpathMatrix* m :
         {&a.delays.short_term[k], &a.delays.long_term[k], &a.delays.direct_wait[k], &a.delays.indirect_wait[k]})
      gather_rows(*m, group, shares);
  for (CallpathMatrix& m : a.delays.propagating) gather_rows(m, group, shares);
}

}  // namespace

WaitPathAnalysis analyze_wait_paths(const Trace& trace, const WaitPathOptions& options, ProcessGroup& group,
                                    StepRunner& run) {
  WaitPathAnalysis a;
  {
    CallIndex calls;
    run.step("profile and call index", [&] {
      a.profile = compute_profile(trace);
      a.time_classes = classify_callpaths(trace.defs);
      a.openmp = find_openmp_waits(trace, a.profile);
      calls = index_mpi_calls(trace);
    });
    run.step("wait states", [&] { a.waits = find_wait_states(trace, calls, group); });
    SyncGraph graph;
    run.step("synchronisation graph", [&] { graph = build_sync_graph(trace, calls, a.waits, group); });
    run.step("critical path", [&] { a.critical_path = find_critical_path(trace, a.waits, graph, group); });
    run.step("delay costs", [&] {
      a.delays = analyze_delays(trace, a.waits, graph, options.delay_rules, group, options.release_round_bytes);
    });
  }
  // Every process's rows of every matrix: the analyses below read them whole (a whole trace's are).
  if (trace.share) gather_all_rows(a, trace, group);
  a.partitions = options.partitions ? *options.partitions : derive_partitions(trace, a.profile);
  a.imbalance =
      compute_imbalance(trace, a.profile, a.waits, a.critical_path, options.partitions ? &a.partitions : nullptr);
  return a;
}

WaitPathAnalysis analyze_wait_paths(const Trace& trace, const WaitPathOptions& options) {
  SoloProcess alone;
  return analyze_wait_paths(trace, options, alone);
}

MetricTable metric_table(const WaitPathAnalysis& a) {
  MetricTable t;
  add_matrix(t, metric::kTime, a.profile.time);
  add_time_tree(t, a.profile, &a.openmp.idle, a.time_classes);
  add_matrix(t, metric::kVisits, a.profile.visits);
  for (int s = 0; s < kMessageStatCount; ++s) add_matrix(t, message_stat_metric(MessageStat(s)), a.profile.messages[s]);
  for (int k = 0; k < kWaitKindCount; ++k) add_matrix(t, metric_name(WaitKind(k)), a.waits.seconds[k]);
  for (int k = 0; k < kWaitKindCount; ++k) add_matrix(t, count_metric_name(WaitKind(k)), a.waits.counts[k]);
  add_matrix(t, metric::kBarrierCompletion, a.waits.barrier_completion);
  add_matrix(t, metric::kNxnCompletion, a.waits.nxn_completion);
  add_matrix(t, metric::kInitCompletion, a.waits.init_completion);
  add_matrix(t, "mpi_lswo_different", a.waits.wrong_order.different);
  add_matrix(t, "mpi_lswo_same", a.waits.wrong_order.same);
  add_matrix(t, "mpi_clswo_count", a.waits.wrong_order.communications);
  add_matrix(t, "mpi_slswo_count", a.waits.wrong_order.synchronizations);
  add_matrix(t, "mpi_sls_count", a.waits.late_sender_syncs);
  add_matrix(t, "mpi_slr_count", a.waits.late_receiver_syncs);
  if (a.openmp.idle.slots > 0) {  // hybrid traces
    add_matrix(t, metric::kOmpIbarrierWait, a.openmp.ibarrier);
    add_matrix(t, metric::kOmpEbarrierWait, a.openmp.ebarrier);
    add_matrix(t, metric::kOmpIdleThreads, a.openmp.idle);
  }
  for (int k = 0; k < kDelayCategoryCount; ++k) {
    add_matrix(t, direct_wait_metric(WaitKind(k)), a.delays.direct_wait[k]);
    add_matrix(t, indirect_wait_metric(WaitKind(k)), a.delays.indirect_wait[k]);
  }
  add_matrix(t, metric::kCriticalPath, a.critical_path.profile);
  add_matrix(t, metric::kCriticalPathImbalance, a.imbalance.critical_path_imbalance);
  add_matrix(t, metric::kPerformanceImpact, a.imbalance.performance_impact);
  add_matrix(t, metric::kCriticalPathActivities, a.imbalance.critical_path_activities);
  add_matrix(t, metric::kNonCriticalPathActivities, a.imbalance.non_critical_path_activities);
  add_matrix(t, metric::kCriticalImbalanceImpact, a.imbalance.critical_imbalance_impact);
  add_matrix(t, metric::kIntraPartitionImbalance, a.imbalance.intra_partition_imbalance);
  add_matrix(t, metric::kInterPartitionImbalance, a.imbalance.inter_partition_imbalance);
  for (int k = 0; k < kDelayCategoryCount; ++k) {
    add_matrix(t, short_term_metric(WaitKind(k)), a.delays.short_term[k]);
    add_matrix(t, long_term_metric(WaitKind(k)), a.delays.long_term[k]);
  }
  // Waitstates.MPI.pattern: propagating point-to-point waits, and the rest of each kind's waiting
  // time (terminal: mpi_latesender - mpi_wait_propagating_ls, as scout.spec derives it)
  for (const int side : {0, 1}) {
    const CallpathMatrix& propagating = a.delays.propagating[side];
    if (propagating.values.empty()) continue;
    CallpathMatrix terminal = a.waits.seconds[side];
    for (std::size_t i = 0; i < terminal.values.size(); ++i) terminal.values[i] -= propagating.values[i];
    add_matrix(t, side == 0 ? "mpi_wait_propagating_ls" : "mpi_wait_propagating_lr", propagating);
    add_matrix(t, side == 0 ? "mpi_wait_terminal_ls" : "mpi_wait_terminal_lr", terminal);
  }
  add_sums(t, a.profile.time.slots, a.profile.time.ranks);
  return t;
}

}  // namespace wisp
