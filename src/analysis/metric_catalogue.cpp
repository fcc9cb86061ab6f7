// The metric catalogue's data and lookups. See metric_catalogue.hpp. Display names are the NAME
// lines and descriptions the INFO lines of Scalasca 2.6's .pattern files; wisp's own metrics are
// named in the same style and their descriptions end in "(wisp: ...)", saying where they stand in the
// metric tree: a root of their own, or the Scalasca metric they refine.
#include "wisp/analysis/metric_catalogue.hpp"

#include <algorithm>
#include <array>

namespace wisp {

// A named namespace: its `using enum` must not reach the rest of a unity batch.
namespace catalogue {

using enum AnalysisKind;
using R = WaitRole;
constexpr WaitKind LS = WaitKind::LateSender, LR = WaitKind::LateReceiver, NXN = WaitKind::WaitNxN,
                   BAR = WaitKind::WaitBarrier, BC = WaitKind::LateBroadcast, RED = WaitKind::EarlyReduce,
                   SCAN = WaitKind::EarlyScan, FIN = WaitKind::FinalizeWait;

constexpr std::array<std::string_view, 7> kKeys{"profile",       "wait_states", "critical_path", "delays", "pag",
                                                "wait_estimate", "pop"};

constexpr MetricInfo kCatalogue[] = {
    // Generic.pattern, MPI.pattern, MPI_File.pattern and MPI_RMA.pattern: the time tree. Its inner
    // metrics are the time of call paths whose region is of a class (time_tree.hpp) or sums.
    {metric::kTime, "Time", "", "sec", Profile, true,
     "Total CPU allocation time (includes time allocated for idle threads)"},
    {"execution", "Execution", metric::kTime, "sec", Profile, false,
     "Execution time (does not include time allocated for idle threads)"},
    {"comp", "Computation", "execution", "sec", Profile, false, "Time spent on computation"},
    {"mpi", "MPI", "execution", "sec", Profile, false, "Time spent in MPI calls"},
    sum_of_children(
        {"mpi_management", "MPI Management", "mpi", "sec", Profile, false, "Time spent in MPI management operations"}),
    {"mpi_init_exit", "MPI Init/Finalize", "mpi_management", "sec", Profile, false,
     "Time spent in MPI initialization/finalization calls"},
    {metric::kInitCompletion, "MPI Initialization Completion", "mpi_init_exit", "sec", WaitStates, false,
     "Time needed to finish MPI initialization"},
    {"mpi_finalize_wait", "MPI Wait at Finalize", "mpi_init_exit", "sec", WaitStates, true,
     "Waiting time in front of MPI_Finalize", R::Time, FIN},
    {"mpi_mgmt_comm", "MPI Communicator Management", "mpi_management", "sec", Profile, false,
     "Time spent in MPI Communicator management calls"},
    {"mpi_mgmt_file", "MPI File Management", "mpi_management", "sec", Profile, false,
     "Time spent in MPI file management calls"},
    {"mpi_mgmt_win", "MPI Window Management", "mpi_management", "sec", Profile, false,
     "Time spent in MPI window management calls"},
    sum_of_children({"mpi_synchronization", "MPI Synchronization", "mpi", "sec", Profile, false,
                     "Time spent in MPI synchronization calls"}),
    {"mpi_sync_collective", "MPI Collective Synchronization", "mpi_synchronization", "sec", Profile, false,
     "Time spent in MPI barriers"},
    {"mpi_barrier_wait", "MPI Wait at Barrier", "mpi_sync_collective", "sec", WaitStates, true,
     "Waiting time in front of MPI barriers", R::Time, BAR},
    {metric::kBarrierCompletion, "MPI Barrier Completion", "mpi_sync_collective", "sec", WaitStates, false,
     "Time needed to finish MPI barriers"},
    sum_of_children({"mpi_rma_synchronization", "MPI One-sided Synchronization", "mpi_synchronization", "sec", Profile,
                     false, "Time spent in MPI one-sided synchronization calls"}),
    {"mpi_rma_sync_active", "MPI Active Target Synchronization", "mpi_rma_synchronization", "sec", Profile, false,
     "Time spent in MPI one-sided active target synchronization calls"},
    {"mpi_rma_sync_passive", "MPI One-sided Passive Target Synchronization", "mpi_rma_synchronization", "sec", Profile,
     false, "Time spent in MPI one-sided passive target synchronization calls"},
    sum_of_children({"mpi_communication", "MPI Communication", "mpi", "sec", Profile, false,
                     "Time spent in MPI communication calls"}),
    {"mpi_point2point", "MPI point-to-point communication", "mpi_communication", "sec", Profile, false,
     "Time spent in MPI point-to-point communication"},
    {"mpi_latesender", "MPI Late Sender", "mpi_point2point", "sec", WaitStates, true,
     "Time in MPI point-to-point receive operation waiting for a message", R::Time, LS},
    sum_of_children({"mpi_latesender_wo", "MPI Late Sender, wrong order", "mpi_latesender", "sec", WaitStates, false,
                     "Late Sender situation due to MPI messages received in the wrong order"}),
    {"mpi_lswo_different", "MPI Late Sender, wrong order (different source)", "mpi_latesender_wo", "sec", WaitStates,
     false, "Late Sender, Wrong Order situation due to MPI messages received from different sources"},
    {"mpi_lswo_same", "MPI Late Sender, wrong order (same source)", "mpi_latesender_wo", "sec", WaitStates, false,
     "Late Sender, Wrong Order situation due to MPI messages received from the same source"},
    {"mpi_latereceiver", "MPI Late Receiver", "mpi_point2point", "sec", WaitStates, true,
     "Time in MPI point-to-point send operation waiting for the receiver to become ready", R::Time, LR},
    {"mpi_collective", "MPI collective communication", "mpi_communication", "sec", Profile, false,
     "Time spent in MPI collective communication"},
    {"mpi_earlyreduce", "MPI Early Reduce", "mpi_collective", "sec", WaitStates, true,
     "Waiting time due to an early receiver in MPI n-to-1 operations", R::Time, RED},
    {"mpi_earlyscan", "MPI Early Scan", "mpi_collective", "sec", WaitStates, true,
     "Waiting time due to an early receiver in an MPI scan operation", R::Time, SCAN},
    {"mpi_latebroadcast", "MPI Late Broadcast", "mpi_collective", "sec", WaitStates, true,
     "Waiting time due to a late sender in MPI 1-to-n operations", R::Time, BC},
    {"mpi_wait_nxn", "MPI Wait at N x N", "mpi_collective", "sec", WaitStates, true,
     "Time due to inherent synchronization in MPI n-to-n operations", R::Time, NXN},
    {metric::kNxnCompletion, "MPI N x N Completion", "mpi_collective", "sec", WaitStates, false,
     "Time needed to finish an MPI n-to-n collective operation"},
    {"mpi_rma_communication", "MPI one-sided communication", "mpi_communication", "sec", Profile, false,
     "Time spent in MPI one-sided communication"},
    sum_of_children({"mpi_io", "MPI File I/O", "mpi", "sec", Profile, false, "Time spent in MPI file I/O calls"}),
    {"mpi_io_individual", "MPI Individual File I/O", "mpi_io", "sec", Profile, false,
     "Time spent in individual MPI file I/O calls"},
    {"mpi_io_collective", "MPI Collective File I/O", "mpi_io", "sec", Profile, false,
     "Time spent in collective MPI file I/O calls"},
    // OMP.pattern (hybrid traces): the time tree's OpenMP part; OMP Management (thread-team fork and
    // join, which scout measures) is not computed, so that `comp` holds it
    sum_of_children(
        {"omp_time", "OpenMP", "execution", "sec", Profile, false, "Time spent in the OpenMP runtime system and API"}),
    sum_of_children({"omp_synchronization", "OMP Synchronization", "omp_time", "sec", Profile, false,
                     "Time spent in OpenMP synchronization"}),
    sum_of_children({"omp_barrier", "OMP Barrier", "omp_synchronization", "sec", Profile, false,
                     "Time spent in OpenMP barrier synchronization"}),
    {"omp_ebarrier", "OMP Explicit Barrier", "omp_barrier", "sec", Profile, false,
     "Time spent in explicit OpenMP barrier synchronization"},
    {metric::kOmpEbarrierWait, "OMP Wait at Explicit Barrier", "omp_ebarrier", "sec", WaitStates, true,
     "Waiting time in front of explicit OpenMP barriers"},
    {"omp_ibarrier", "OMP Implicit Barrier", "omp_barrier", "sec", Profile, false,
     "Time spent in implicit OpenMP barrier synchronization"},
    {metric::kOmpIbarrierWait, "OMP Wait at Implicit Barrier", "omp_ibarrier", "sec", WaitStates, true,
     "Waiting time in front of implicit OpenMP barriers"},
    {"omp_critical", "OMP Critical", "omp_synchronization", "sec", Profile, false,
     "Time spent waiting at OpenMP critical sections"},
    {"omp_lock_api", "OMP Lock API", "omp_synchronization", "sec", Profile, false,
     "Time spent in OpenMP lock API calls"},
    {"omp_ordered", "OMP Ordered", "omp_synchronization", "sec", Profile, false,
     "Time spent waiting at OpenMP ordered regions"},
    {"omp_taskwait", "OMP Taskwait", "omp_synchronization", "sec", Profile, false,
     "Time spent waiting in OpenMP taskwait directives"},
    {"omp_flush", "OMP Flush", "omp_time", "sec", Profile, false, "Time spent in OpenMP flush directives"},
    {"overhead", "Overhead", metric::kTime, "sec", Profile, false,
     "Time spent performing tasks related to trace generation"},
    {metric::kOmpIdleThreads, "OMP Idle Threads", metric::kTime, "sec", WaitStates, true,
     "Unused CPU reservation time"},
    {metric::kVisits, "Visits", "", "occ", Profile, false, "Number of visits"},
    // Message.pattern: MPI message statistics, counted where scout counts them (message_stats.hpp)
    sum_of_children(
        {"syncs", "MPI synchronizations", "", "occ", Profile, false, "Number of MPI synchronization operations"}),
    sum_of_children({"syncs_p2p", "MPI P2P synchronizations", "syncs", "occ", Profile, false,
                     "Number of MPI point-to-point synchronization operations"}),
    {"syncs_send", "MPI P2P send synchronizations", "syncs_p2p", "occ", Profile, false,
     "Number of MPI point-to-point send synchronization operations"},
    {"mpi_slr_count", "MPI Late Receiver Instances (Synchronizations)", "syncs_send", "occ", WaitStates, false,
     "Number of Late Receiver instances in MPI synchronizations"},
    {"syncs_recv", "MPI P2P recv synchronizations", "syncs_p2p", "occ", Profile, false,
     "Number of MPI point-to-point receive synchronization operations"},
    {"mpi_sls_count", "MPI Late Sender Instances (Synchronizations)", "syncs_recv", "occ", WaitStates, false,
     "Number of Late Sender instances in MPI synchronizations"},
    {"mpi_slswo_count", "MPI Late Sender, Wrong Order Instances (Synchronizations)", "mpi_sls_count", "occ", WaitStates,
     false, "Number of Late Sender instances in MPI synchronizations where messages are received in wrong order"},
    {"syncs_coll", "MPI collective synchronizations", "syncs", "occ", Profile, false,
     "Number of MPI collective synchronization operations"},
    sum_of_children(
        {"comms", "MPI communications", "", "occ", Profile, false, "Number of MPI communication operations"}),
    sum_of_children({"comms_p2p", "MPI P2P communications", "comms", "occ", Profile, false,
                     "Number of MPI point-to-point communication operations"}),
    {"comms_send", "MPI P2P send communications", "comms_p2p", "occ", Profile, false,
     "Number of MPI point-to-point send communication operations"},
    {"comms_recv", "MPI P2P recv communications", "comms_p2p", "occ", Profile, false,
     "Number of MPI point-to-point receive communication operations"},
    sum_of_children({"comms_coll", "MPI collective communications", "comms", "occ", Profile, false,
                     "Number of MPI collective communication operations"}),
    {"comms_cxch", "MPI collective exchange communications", "comms_coll", "occ", Profile, false,
     "Number of MPI collective communications as source and destination"},
    {"comms_csrc", "MPI collective communications as source", "comms_coll", "occ", Profile, false,
     "Number of MPI collective communications as source"},
    {"comms_cdst", "MPI collective communications as destination", "comms_coll", "occ", Profile, false,
     "Number of MPI collective communications as destination"},
    sum_of_children({"bytes", "MPI bytes transferred", "", "bytes", Profile, false,
                     "Number of bytes transferred in MPI communication/synchronization operations"}),
    sum_of_children({"bytes_p2p", "MPI P2P bytes transferred", "bytes", "bytes", Profile, false,
                     "Number of bytes transferred in MPI point-to-point communication operations"}),
    {"bytes_sent", "MPI P2P bytes sent", "bytes_p2p", "bytes", Profile, false,
     "Number of bytes sent in MPI point-to-point communication operations"},
    {"bytes_rcvd", "MPI P2P bytes received", "bytes_p2p", "bytes", Profile, false,
     "Number of bytes received in MPI point-to-point communication operations"},
    sum_of_children({"bytes_coll", "MPI Collective bytes transferred", "bytes", "bytes", Profile, false,
                     "Number of bytes transferred in MPI collective communication operations"}),
    {"bytes_cout", "MPI collective bytes outgoing", "bytes_coll", "bytes", Profile, false,
     "Number of bytes outgoing in MPI collective communication operations"},
    {"bytes_cin", "MPI collective bytes incoming", "bytes_coll", "bytes", Profile, false,
     "Number of bytes incoming in MPI collective communication operations"},
    // Counts.pattern
    {"mpi_cls_count", "MPI Late Sender Instances (Communications)", "comms_recv", "occ", WaitStates, false,
     "Number of Late Sender instances in MPI communications", R::Count, LS},
    {"mpi_clswo_count", "MPI Late Sender, Wrong Order Instances (Communications)", "mpi_cls_count", "occ", WaitStates,
     false, "Number of Late Sender instances in MPI communications where messages are received in wrong order"},
    {"mpi_clr_count", "MPI Late Receiver Instances (Communications)", "comms_send", "occ", WaitStates, false,
     "Number of Late Receiver instances in MPI communications", R::Count, LR},
    {"mpi_wait_nxn_count", "MPI Wait at N x N Instances", "", "occ", WaitStates, false,
     "Number of Wait at N x N instances in MPI n-to-n operations (wisp: a root; Scalasca counts point-to-point "
     "instances only)",
     R::Count, NXN},
    {"mpi_barrier_wait_count", "MPI Wait at Barrier Instances", "", "occ", WaitStates, false,
     "Number of Wait at Barrier instances in MPI barriers (wisp: a root; Scalasca counts point-to-point instances "
     "only)",
     R::Count, BAR},
    {"mpi_latebroadcast_count", "MPI Late Broadcast Instances", "", "occ", WaitStates, false,
     "Number of Late Broadcast instances in MPI 1-to-n operations (wisp: a root; Scalasca counts point-to-point "
     "instances only)",
     R::Count, BC},
    {"mpi_earlyreduce_count", "MPI Early Reduce Instances", "", "occ", WaitStates, false,
     "Number of Early Reduce instances in MPI n-to-1 operations (wisp: a root; Scalasca counts point-to-point "
     "instances only)",
     R::Count, RED},
    {"mpi_earlyscan_count", "MPI Early Scan Instances", "", "occ", WaitStates, false,
     "Number of Early Scan instances in MPI scan operations (wisp: a root; Scalasca counts point-to-point instances "
     "only)",
     R::Count, SCAN},
    {"mpi_finalize_wait_count", "MPI Wait at Finalize Instances", "", "occ", WaitStates, false,
     "Number of Wait at Finalize instances in front of MPI_Finalize (wisp: a root; Scalasca counts point-to-point "
     "instances only)",
     R::Count, FIN},
    // Waitstates.MPI.pattern (the collective kinds: wisp)
    sum_of_children({"waitstates_propagating_vs_terminal", "MPI point-to-point wait states (propagating vs. terminal)",
                     "", "sec", Delays, false,
                     "Classification of MPI point-to-point waiting time into propagating and terminal wait states"}),
    sum_of_children({"mpi_wait_propagating", "Propagating MPI point-to-point wait states",
                     "waitstates_propagating_vs_terminal", "sec", Delays, false,
                     "Aggregate amount of MPI point-to-point waiting time that propagates further"}),
    {"mpi_wait_propagating_ls", "Propagating MPI Late Sender wait states", "mpi_wait_propagating", "sec", Delays, false,
     "MPI Late Sender wait states which cause further waiting time on other processes"},
    {"mpi_wait_propagating_lr", "Propagating MPI Late Receiver wait states", "mpi_wait_propagating", "sec", Delays,
     false, "MPI Late Receiver wait states which cause further waiting time on other processes"},
    sum_of_children({"mpi_wait_terminal", "Terminal MPI point-to-point wait states",
                     "waitstates_propagating_vs_terminal", "sec", Delays, false,
                     "Aggregate amount of MPI point-to-point waiting time that does not propagate further"}),
    {"mpi_wait_terminal_ls", "Terminal MPI Late Sender wait states", "mpi_wait_terminal", "sec", Delays, false,
     "MPI Late Sender wait states which do not propagate"},
    {"mpi_wait_terminal_lr", "Terminal MPI Late Receiver wait states", "mpi_wait_terminal", "sec", Delays, false,
     "MPI Late Receiver wait states which do not propagate"},
    sum_of_children({"waitstates_direct_vs_indirect", "MPI point-to-point wait states (direct vs. indirect)", "", "sec",
                     Delays, false,
                     "Classification of MPI point-to-point waiting time into direct and indirect wait states"}),
    sum_of_children({"mpi_wait_direct", "Direct MPI point-to-point wait states", "waitstates_direct_vs_indirect", "sec",
                     Delays, false,
                     "MPI point-to-point waiting time that results from direct delay, i.e., is directly caused by "
                     "load imbalance"}),
    sum_of_children({"mpi_wait_indirect", "Indirect MPI point-to-point wait states", "waitstates_direct_vs_indirect",
                     "sec", Delays, false, "MPI point-to-point waiting time that results from wait-state propagation"}),
    {"mpi_wait_direct_latesender", "Direct MPI Late Sender wait states", "mpi_wait_direct", "sec", Delays, false,
     "Waiting time in MPI Late Sender wait states that results from direct delay", R::DirectWait, LS},
    {"mpi_wait_direct_latereceiver", "Direct MPI Late Receiver wait states", "mpi_wait_direct", "sec", Delays, false,
     "Waiting time in MPI Late Receiver wait states that results from direct delay", R::DirectWait, LR},
    {"mpi_wait_direct_nxn", "Direct MPI Wait at N x N wait states", "", "sec", Delays, false,
     "Waiting time in MPI Wait at N x N wait states that results from direct delay (wisp: a root, part of MPI Wait at "
     "N x N)",
     R::DirectWait, NXN},
    {"mpi_wait_direct_barrier", "Direct MPI Wait at Barrier wait states", "", "sec", Delays, false,
     "Waiting time in MPI Wait at Barrier wait states that results from direct delay (wisp: a root, part of MPI Wait "
     "at Barrier)",
     R::DirectWait, BAR},
    {"mpi_wait_direct_latebroadcast", "Direct MPI Late Broadcast wait states", "", "sec", Delays, false,
     "Waiting time in MPI Late Broadcast wait states that results from direct delay (wisp: a root, part of MPI Late "
     "Broadcast)",
     R::DirectWait, BC},
    {"mpi_wait_direct_earlyreduce", "Direct MPI Early Reduce wait states", "", "sec", Delays, false,
     "Waiting time in MPI Early Reduce wait states that results from direct delay (wisp: a root, part of MPI Early "
     "Reduce)",
     R::DirectWait, RED},
    {"mpi_wait_indirect_latesender", "Indirect MPI Late Sender wait states", "mpi_wait_indirect", "sec", Delays, false,
     "Indirect waiting time in MPI Late Sender wait states that results from propagation", R::IndirectWait, LS},
    {"mpi_wait_indirect_latereceiver", "Indirect MPI Late Receiver wait states", "mpi_wait_indirect", "sec", Delays,
     false, "Indirect waiting time in MPI Late Receiver wait states that results from propagation", R::IndirectWait,
     LR},
    {"mpi_wait_indirect_nxn", "Indirect MPI Wait at N x N wait states", "", "sec", Delays, false,
     "Indirect waiting time in MPI Wait at N x N wait states that results from propagation (wisp: a root, part of MPI "
     "Wait at N x N)",
     R::IndirectWait, NXN},
    {"mpi_wait_indirect_barrier", "Indirect MPI Wait at Barrier wait states", "", "sec", Delays, false,
     "Indirect waiting time in MPI Wait at Barrier wait states that results from propagation (wisp: a root, part of "
     "MPI Wait at Barrier)",
     R::IndirectWait, BAR},
    {"mpi_wait_indirect_latebroadcast", "Indirect MPI Late Broadcast wait states", "", "sec", Delays, false,
     "Indirect waiting time in MPI Late Broadcast wait states that results from propagation (wisp: a root, part of MPI "
     "Late Broadcast)",
     R::IndirectWait, BC},
    {"mpi_wait_indirect_earlyreduce", "Indirect MPI Early Reduce wait states", "", "sec", Delays, false,
     "Indirect waiting time in MPI Early Reduce wait states that results from propagation (wisp: a root, part of MPI "
     "Early Reduce)",
     R::IndirectWait, RED},
    // CriticalPath.pattern
    {metric::kCriticalPath, "Critical path profile", "", "sec", CriticalPath, true,
     "Profile of the application's critical path"},
    {metric::kCriticalPathImbalance, "Imbalance", metric::kCriticalPath, "sec", CriticalPath, true,
     "Imbalanced critical-path routines"},
    {metric::kPerformanceImpact, "Performance impact", "", "sec", CriticalPath, false,
     "Global performance impact of program activities"},
    sum_of_children({"performance_impact_criticalpath", "Critical-path activities", metric::kPerformanceImpact, "sec",
                     CriticalPath, false, "Overall resource consumption caused by activities on the critical path"}),
    {metric::kCriticalPathActivities, "Activity impact", "performance_impact_criticalpath", "sec", CriticalPath, false,
     "Resource consumption of activities on the critical path"},
    {metric::kCriticalImbalanceImpact, "Critical-path imbalance impact", "performance_impact_criticalpath", "sec",
     CriticalPath, false, "Performance impact of load imbalance on the critical path"},
    {metric::kIntraPartitionImbalance, "Intra-partition imbalance", metric::kCriticalImbalanceImpact, "sec",
     CriticalPath, false,
     "Performance impact of load imbalance within processpartitions that perform activities on the critical path"},
    {metric::kInterPartitionImbalance, "Inter-partition imbalance", metric::kCriticalImbalanceImpact, "sec",
     CriticalPath, false,
     "Performance impact of load imbalance between process partitions that perform different activities"},
    {metric::kNonCriticalPathActivities, "Non-critical-path activities", metric::kPerformanceImpact, "sec",
     CriticalPath, false, "Overall resource consumption of activities that are not on the critical path"},
    // Delay.MPI.pattern: the tree of the delay costs, each parent the sum of its children (the
    // OpenMP delay costs, DELAY_OMP, are not computed: `delay` holds the MPI ones)
    sum_of_children(
        {metric::kDelay, "Delay Costs", "", "sec", Delays, false, "Costs and location of delays causing wait states"}),
    sum_of_children({metric::kDelayMpi, "MPI delay costs", metric::kDelay, "sec", Delays, false,
                     "Delays causing wait states in MPI operations"}),
    sum_of_children({metric::kDelayP2p, "MPI point-to-point delay costs", metric::kDelayMpi, "sec", Delays, false,
                     "Delays causing wait states in MPI point-to-point communication"}),
    sum_of_children({"delay_latesender_aggregate", "MPI Late Sender delay costs", metric::kDelayP2p, "sec", Delays,
                     false, "Delays causing MPI Late Sender wait states", R::DelayAggregate, LS}),
    sum_of_children({"delay_latereceiver_aggregate", "MPI Late Receiver delay costs", metric::kDelayP2p, "sec", Delays,
                     false, "Delays causing MPI Late Receiver wait states", R::DelayAggregate, LR}),
    sum_of_children({metric::kDelayCollective, "MPI collective delay costs", metric::kDelayMpi, "sec", Delays, false,
                     "Delays that cause wait states in MPI collective communication"}),
    sum_of_children({"delay_barrier_aggregate", "MPI Wait at Barrier delay costs", metric::kDelayCollective, "sec",
                     Delays, false, "Delays causing wait states in front of MPI barriers", R::DelayAggregate, BAR}),
    sum_of_children({"delay_n2n_aggregate", "MPI Wait at N x N delay costs", metric::kDelayCollective, "sec", Delays,
                     false, "Delays causing wait states in front of MPI n-to-n collective communcations",
                     R::DelayAggregate, NXN}),
    sum_of_children({"delay_12n_aggregate", "MPI Late Broadcast delay costs", metric::kDelayCollective, "sec", Delays,
                     false, "Delays causing wait states in MPI 1-to-n collective communications", R::DelayAggregate,
                     BC}),
    sum_of_children({"delay_n21_aggregate", "MPI Early Reduce delay costs", metric::kDelayCollective, "sec", Delays,
                     false, "Delays causing wait states in MPI n-to-1 collective communications", R::DelayAggregate,
                     RED}),
    {"delay_latesender", "MPI short-term Late Sender delay costs", "delay_latesender_aggregate", "sec", Delays, true,
     "Delays that directly cause MPI Late Sender wait states", R::ShortTermDelay, LS},
    {"delay_latesender_longterm", "MPI long-term Late Sender delay costs", "delay_latesender_aggregate", "sec", Delays,
     true, "Delays that indirectly cause MPI Late Sender wait states through wait-state propagation", R::LongTermDelay,
     LS},
    {"delay_latereceiver", "MPI short-term Late Receiver delay costs", "delay_latereceiver_aggregate", "sec", Delays,
     true, "Delays that directly cause MPI Late Receiver wait states", R::ShortTermDelay, LR},
    {"delay_latereceiver_longterm", "MPI long-term Late Receiver delay costs", "delay_latereceiver_aggregate", "sec",
     Delays, true, "Delays that indirectly cause MPI Late Receiver wait states through wait-state propagation",
     R::LongTermDelay, LR},
    {"delay_n2n", "MPI short-term N x N delay costs", "delay_n2n_aggregate", "sec", Delays, true,
     "Delays that directly cause wait states in MPI n-to-n collective communications", R::ShortTermDelay, NXN},
    {"delay_n2n_longterm", "MPI long-term N x N delay costs", "delay_n2n_aggregate", "sec", Delays, true,
     "Delays that indirectly cause wait states in MPI n-to-n collective communications through wait-state propagation",
     R::LongTermDelay, NXN},
    {"delay_barrier", "MPI short-term barrier delay costs", "delay_barrier_aggregate", "sec", Delays, true,
     "Delays that directly cause wait states in MPI barriers", R::ShortTermDelay, BAR},
    {"delay_barrier_longterm", "MPI long-term barrier delay costs", "delay_barrier_aggregate", "sec", Delays, true,
     "Delays that indirectly cause wait states in MPI barriers through wait-state propagation", R::LongTermDelay, BAR},
    {"delay_12n", "MPI short-term 1-to-N delay costs", "delay_12n_aggregate", "sec", Delays, true,
     "Delays that directly cause wait states in MPI 1-to-n collective communications", R::ShortTermDelay, BC},
    {"delay_12n_longterm", "MPI long-term 1-to-N delay costs", "delay_12n_aggregate", "sec", Delays, true,
     "Delays that indirectly cause wait states in MPI 1-to-n collective communications through wait-state propagation",
     R::LongTermDelay, BC},
    {"delay_n21", "MPI short-term N-to-1 delay costs", "delay_n21_aggregate", "sec", Delays, true,
     "Delays that directly cause wait states in MPI n-to-1 collective communications", R::ShortTermDelay, RED},
    {"delay_n21_longterm", "MPI long-term N-to-1 delay costs", "delay_n21_aggregate", "sec", Delays, true,
     "Delays that indirectly cause wait states in MPI n-to-1 collective communications through wait-state propagation",
     R::LongTermDelay, RED},
    // Imbalance.pattern: CubeLib's computational load imbalance heuristic (time_tree.hpp)
    {"imbalance", "Computational load imbalance", "", "sec", Profile, false,
     "Computational load imbalance heuristic (see Online Description for details)"},
    {"imbalance_above", "Overload", "imbalance", "sec", Profile, false,
     "Computational load imbalance heuristic (overload)"},
    {"imbalance_above_single", "Single participant", "imbalance_above", "sec", Profile, false,
     "Computational load imbalance heuristic (single participant)"},
    {"imbalance_below", "Underload", "imbalance", "sec", Profile, false,
     "Computational load imbalance heuristic (underload)"},
    {"imbalance_below_bypass", "Non-participation", "imbalance_below", "sec", Profile, false,
     "Computational load imbalance heuristic (non-participation)"},
    {"imbalance_below_singularity", "Singularity", "imbalance_below_bypass", "sec", Profile, false,
     "Computational load imbalance heuristic (non-participation in singularity)"},
    // Program activity graph (paper 001)
    {"mbm_k", "Maximum benefit (k longest paths)", "", "sec", Pag, false,
     "Maximum benefit of shortening a call path, over the k longest near-critical paths (wisp: a root)"},
    {"mbm_all", "Maximum benefit (all near-critical paths)", "", "sec", Pag, false,
     "Maximum benefit of shortening a call path, over all paths of the activity graph (wisp: a root)"},
    // Minimum-based wait estimate (paper 002)
    {"estimated_wait", "Estimated waiting time", "", "sec", WaitEstimate, false,
     "Waiting time estimated as the excess over the minimum duration of the call's category (wisp: a root)"},
    // POP efficiency factors
    {"parallel_efficiency", "Parallel efficiency", "", "ratio", Pop, false,
     "Load balance times communication efficiency (wisp: a root)"},
    {"load_balance", "Load balance", "parallel_efficiency", "ratio", Pop, false,
     "Mean useful computation time over the maximum one (wisp: a POP factor of its parent; a root in the cube, where "
     "ratios would add up)"},
    {"communication_efficiency", "Communication efficiency", "parallel_efficiency", "ratio", Pop, false,
     "Serialisation times transfer efficiency (wisp: a POP factor of its parent; a root in the cube, where ratios "
     "would add up)"},
    {"serialisation", "Serialisation efficiency", "communication_efficiency", "ratio", Pop, false,
     "Maximum useful time over the runtime on an ideal network (wisp: a POP factor of its parent; a root in the cube, "
     "where ratios would add up)"},
    {"transfer", "Transfer efficiency", "communication_efficiency", "ratio", Pop, false,
     "Runtime on an ideal network over the measured runtime (wisp: a POP factor of its parent; a root in the cube, "
     "where ratios would add up)"},
    // POP's hybrid MPI+OpenMP factors (traces with OpenMP threads; pop_hybrid.hpp)
    {"hybrid_parallel_efficiency", "Hybrid parallel efficiency", "", "ratio", Pop, false,
     "Useful time of all threads over threads times the runtime (wisp: a root)"},
    {"mpi_parallel_efficiency", "MPI parallel efficiency", "hybrid_parallel_efficiency", "ratio", Pop, false,
     "Mean time of the masters outside MPI over the runtime (wisp: a POP factor of its parent; a root in the cube, "
     "where ratios would add up)"},
    {"mpi_load_balance", "MPI load balance", "mpi_parallel_efficiency", "ratio", Pop, false,
     "Mean over maximum time of the masters outside MPI (wisp: a POP factor of its parent; a root in the cube, where "
     "ratios would add up)"},
    {"mpi_communication_efficiency", "MPI communication efficiency", "mpi_parallel_efficiency", "ratio", Pop, false,
     "Maximum time of a master outside MPI over the runtime (wisp: a POP factor of its parent; a root in the cube, "
     "where ratios would add up)"},
    {"openmp_parallel_efficiency", "OpenMP parallel efficiency", "hybrid_parallel_efficiency", "ratio", Pop, false,
     "Hybrid over MPI parallel efficiency (wisp: a POP factor of its parent; a root in the cube, where ratios would "
     "add up)"},
};

}  // namespace catalogue

std::string_view analysis_key(AnalysisKind a) { return catalogue::kKeys[static_cast<int>(a)]; }
const std::vector<std::string>& analysis_keys() {
  static const std::vector<std::string> keys(catalogue::kKeys.begin() + 1, catalogue::kKeys.end());
  return keys;
}

std::span<const MetricInfo> metric_catalogue() { return catalogue::kCatalogue; }

std::vector<const MetricInfo*> sums_deepest_first() {
  const auto depth = [](const MetricInfo& m) {
    int d = 0;
    for (const MetricInfo* x = &m; x && !x->parent.empty(); x = find_metric(x->parent)) ++d;
    return d;
  };
  std::vector<std::pair<int, const MetricInfo*>> sums;
  for (const MetricInfo& m : catalogue::kCatalogue)
    if (m.sum) sums.emplace_back(-depth(m), &m);
  std::stable_sort(sums.begin(), sums.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const MetricInfo*> out;
  for (const auto& s : sums) out.push_back(s.second);
  return out;
}

std::string_view display_name(std::string_view metric) {
  const MetricInfo* m = find_metric(metric);
  return m ? m->display : metric;
}

const MetricInfo* find_metric(std::string_view name) {
  const auto it = std::find_if(std::begin(catalogue::kCatalogue), std::end(catalogue::kCatalogue),
                               [&](const MetricInfo& m) { return m.name == name; });
  return it == std::end(catalogue::kCatalogue) ? nullptr : &*it;
}

std::vector<const MetricInfo*> metrics_of(AnalysisKind a) {
  std::vector<const MetricInfo*> out;
  for (const MetricInfo& m : catalogue::kCatalogue)
    if (m.analysis == a) out.push_back(&m);
  return out;
}

std::string_view wait_metric(WaitRole role, WaitKind kind) {
  for (const MetricInfo& m : catalogue::kCatalogue)
    if (m.role == role && m.kind == kind && role != WaitRole::None) return m.name;
  return {};
}

bool compared_by_callpath(std::string_view metric, const std::vector<std::string>& requested) {
  const MetricInfo* m = find_metric(metric);
  if (!m || !m->compared) return false;
  return m->analysis == AnalysisKind::Profile ||
         std::find(requested.begin(), requested.end(), analysis_key(m->analysis)) != requested.end();
}

}  // namespace wisp
