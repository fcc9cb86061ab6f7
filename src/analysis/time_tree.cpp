// The time tree's region classes, as scout.spec's cubeplinit sets its call-path masks. See
// time_tree.hpp.
#include "wisp/analysis/time_tree.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include "wisp/analysis/metric_catalogue.hpp"

namespace wisp {

namespace {

// OTF2's paradigms and region roles the spec tests (OTF2_GeneralDefinitions.h, OTF2_Definitions.h).
enum Paradigm : std::uint8_t { OpenMP = 3, Mpi = 4, Cuda = 5, Measurement = 6, OpenCL = 19 };
enum Role : std::uint8_t {
  Critical = 12,
  Atomic = 14,
  Barrier = 15,
  ImplicitBarrier = 16,
  Flush = 17,
  Ordered = 18,
  TaskWait = 22,
  One2All = 23,
  All2One = 24,
  All2All = 25,
  OtherCollective = 26,
  Point2Point = 28,
  Rma = 29,
};

// A region of `paradigm` is of the class if its role is one of `roles` or its name matches `name`
// (ECMAScript, searched as the spec's =~); an empty test never matches.
struct TimeClass {
  std::string_view metric;
  std::uint8_t paradigm;
  std::initializer_list<std::uint8_t> roles;
  std::string_view name;
};

const TimeClass kClasses[] = {
    {"overhead", Measurement, {}, "^(TRACE BUFFER FLUSH|TRACING)$"},
    {"overhead", Cuda, {}, "^BUFFER FLUSH$"},
    {"overhead", OpenCL, {}, "^BUFFER FLUSH$"},
    {"mpi", Mpi, {}, "^(?!PARALLEL$)"},
    {"mpi_init_exit", Mpi, {}, "^MPI_(Init(_thread|ialized){0,1}|Finalize(d){0,1})$"},
    {"mpi_mgmt_comm",
     Mpi,
     {},
     "^MPI_(Cart_(coords|create|get|map|rank|shift|sub)|Cartdim_get|Comm_(accept|compare|connect|create(_group|_keyval)"
     "{0,1}|delete_attr|disconnect|dup(_with_info){0,1}|free(_keyval){0,1}|get_(attr|info|name|parent)|group|idup|join|"
     "rank|remote_(group|size)|set_(attr|info|name)|size|spawn(_multiple){0,1}|split(_type){0,1}|test_inter)|Dims_"
     "create|"
     "Dist_graph_(create(_adjacent){0,1}|neighbors(_count){0,1})|Graph_(create|get|map|neighbors(_count){0,1})|"
     "Graphdims_get|Intercomm_(create|merge)|Topo_test|(Close|Open)_port|(Lookup|Publish|Unpublish)_name)$"},
    {"mpi_mgmt_file",
     Mpi,
     {},
     "^MPI_File_(close|delete|get_(amode|atomicity|byte_offset|group|info|position(_shared){0,1}|size|type_extent|view)"
     "|"
     "open|preallocate|seek(_shared){0,1}|set_(atomicity|info|size|view)|sync)$"},
    {"mpi_mgmt_win",
     Mpi,
     {},
     "^MPI_Win_(allocate(_shared){0,1}|attach|create(_dynamic|_keyval){0,1}|delete_attr|detach|free(_keyval){0,1}|get_("
     "attr|group|info|name)|set_(attr|info|name)|shared_query)$"},
    {"mpi_sync_collective", Mpi, {Barrier}, ""},
    {"mpi_rma_sync_active", Mpi, {}, "^MPI_Win_(complete|fence|post|start|test|wait)$"},
    {"mpi_rma_sync_passive", Mpi, {}, "^MPI_Win_((flush(_local){0,1}|lock|unlock)(_all){0,1}|sync)$"},
    {"mpi_point2point", Mpi, {Point2Point}, "^MPI_(Test|Wait)(all|any|some){0,1}$"},
    {"mpi_collective", Mpi, {One2All, All2One, All2All, OtherCollective}, ""},
    {"mpi_rma_communication", Mpi, {Rma, Atomic}, ""},
    {"mpi_io_individual", Mpi, {}, "^MPI_File_i{0,1}(read|write)(_at|_shared){0,1}$"},
    {"mpi_io_collective",
     Mpi,
     {},
     "^MPI_File_((iread|iwrite)_(all|at_all)|(read|write)_(all|at_all|ordered)(_begin|_end){0,1})$"},
    {"omp_ebarrier", OpenMP, {Barrier}, ""},
    {"omp_ibarrier", OpenMP, {ImplicitBarrier}, ""},
    {"omp_critical", OpenMP, {Atomic, Critical}, ""},
    {"omp_lock_api", OpenMP, {}, "^omp_(destroy|init|set|test|unset)(_nest){0,1}_lock$"},
    {"omp_ordered", OpenMP, {Ordered}, ""},
    {"omp_taskwait", OpenMP, {TaskWait}, ""},
    {"omp_flush", OpenMP, {Flush}, ""},
};
constexpr std::size_t kClassCount = std::size(kClasses);
static_assert(kClassCount <= 32, "TimeClasses holds one bit per class");

bool of_class(const TimeClass& c, const std::regex& name, const Region& r) {
  if (region_paradigm(r) != c.paradigm) return false;
  for (std::uint8_t role : c.roles)
    if (region_role(r) == role) return true;
  return !c.name.empty() && std::regex_search(r.name, name);
}

std::uint32_t bit_of(std::string_view metric) {
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < kClassCount; ++i)
    if (kClasses[i].metric == metric) bits |= 1u << i;
  return bits;
}

}  // namespace

TimeClasses classify_callpaths(const Definitions& defs) {
  // Compiled once per process (a replay's analyses classify again), without sub-matches.
  static const std::vector<std::regex> names = [] {
    std::vector<std::regex> out;
    for (const TimeClass& c : kClasses) out.emplace_back(c.name.begin(), c.name.end(), std::regex::nosubs);
    return out;
  }();
  std::vector<std::uint32_t> of_region(defs.regions.size(), 0);
  for (std::size_t r = 0; r < defs.regions.size(); ++r)
    for (std::size_t i = 0; i < kClassCount; ++i)
      if (of_class(kClasses[i], names[i], defs.regions[r])) of_region[r] |= 1u << i;
  TimeClasses c;
  c.of_slot.assign(defs.callpaths.size() + 1, 0);
  for (CallpathId cp = 0; cp < defs.callpaths.size(); ++cp)
    if (defs.callpaths[cp].region < of_region.size()) c.of_slot[slot_of(cp)] = of_region[defs.callpaths[cp].region];
  return c;
}

void add_time_tree(MetricTable& table, const Profile& profile, const CallpathMatrix* idle, const TimeClasses& classes) {
  const CallpathMatrix& time = profile.time;
  const bool has_idle = idle && idle->slots == time.slots && idle->ranks == time.ranks;
  const std::uint32_t overhead = bit_of("overhead"), mpi = bit_of("mpi");
  std::uint32_t openmp = 0;
  for (std::size_t i = 0; i < kClassCount; ++i)
    if (kClasses[i].paradigm == OpenMP) openmp |= 1u << i;
  // execution, comp, then each class's metric, call path by call path (a slot has few classes)
  std::vector<std::string_view> metrics{"execution", "comp"};
  std::size_t of_class[kClassCount];  // each class's index in `metrics`
  for (std::size_t i = 0; i < kClassCount; ++i) {
    const auto at = std::find(metrics.begin(), metrics.end(), kClasses[i].metric);
    of_class[i] = static_cast<std::size_t>(at - metrics.begin());
    if (at == metrics.end()) metrics.push_back(kClasses[i].metric);
  }
  std::vector<CallpathMatrix> values(metrics.size(), CallpathMatrix(time.slots, time.ranks));
  for (Rank r = 0; r < time.ranks; ++r)
    for (std::uint32_t s = 0; s < time.slots && s < classes.of_slot.size(); ++s) {
      const double v = time.at(s, r) - (has_idle ? idle->at(s, r) : 0.0);
      const std::uint32_t bits = classes.of_slot[s];
      if (v == 0) continue;
      if (!(bits & overhead)) values[0].at(s, r) = v;
      if (!(bits & (overhead | mpi | openmp))) values[1].at(s, r) = v;
      for (std::size_t i = 0; i < kClassCount; ++i)
        if (bits & (1u << i)) values[of_class[i]].at(s, r) = v;
    }
  for (std::size_t m = 0; m < metrics.size(); ++m) add_matrix(table, metrics[m], values[m]);
  add_imbalance_heuristic(table, values[1], profile.visits);
}

void add_imbalance_heuristic(MetricTable& table, const CallpathMatrix& comp, const CallpathMatrix& visits) {
  const std::uint32_t n = comp.ranks;
  CallpathMatrix imbalance(comp.slots, n), above = imbalance, below = imbalance, single = imbalance, bypass = imbalance,
                                           singularity = imbalance;
  for (std::uint32_t s = 0; s < comp.slots && n > 0; ++s) {
    const double average = comp.total(s) / n;
    std::uint32_t visitors = 0;
    for (Rank r = 0; r < n; ++r) {
      const double diff = comp.at(s, r) - average;
      imbalance.at(s, r) = std::abs(diff);
      (diff > 0 ? above : below).at(s, r) = std::abs(diff);
      visitors += visits.at(s, r) != 0;
    }
    if (average == 0 || visitors == n) continue;
    for (Rank r = 0; r < n; ++r) {
      const bool visited = visits.at(s, r) != 0;
      if (!visited) bypass.at(s, r) = average;
      if (visitors == 1) (visited ? single : singularity).at(s, r) = visited ? average * (n - 1) : average;
    }
  }
  add_matrix(table, "imbalance", imbalance);
  add_matrix(table, "imbalance_above", above);
  add_matrix(table, "imbalance_above_single", single);
  add_matrix(table, "imbalance_below", below);
  add_matrix(table, "imbalance_below_bypass", bypass);
  add_matrix(table, "imbalance_below_singularity", singularity);
}

void add_sums(MetricTable& table, std::uint32_t slots, std::uint32_t ranks) {
  std::vector<std::string_view> parent;  // per table metric (each sum adds one)
  for (const MetricInfo* sum : sums_deepest_first()) {
    for (std::size_t m = parent.size(); m < table.metrics.size(); ++m) {
      const MetricInfo* info = find_metric(table.metrics[m]);
      parent.push_back(info ? info->parent : std::string_view{});
    }
    CallpathMatrix values(slots, ranks);
    for (const MetricRecord& rec : table.records)
      if (parent[rec.metric] == sum->name && rec.rank < ranks && slot_of(rec.callpath) < slots)
        values.at(slot_of(rec.callpath), rec.rank) += rec.value;
    add_matrix(table, sum->name, values);
  }
}

}  // namespace wisp
