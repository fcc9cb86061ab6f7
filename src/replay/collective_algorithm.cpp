// Collective families, algorithm names and the --coll-algo syntax. See collective_algorithm.hpp.
#include "wisp/replay/collective_algorithm.hpp"

#include <fmt/format.h>

#include "wisp/error.hpp"

namespace wisp {

namespace {

constexpr std::array<std::string_view, kCollectiveFamilyCount> kFamilyNames = {
    "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall", "reduce_scatter", "scan"};

constexpr std::array<std::string_view, 7> kAlgorithmNames = {
    "analytic", "binomial", "recursive_doubling", "ring", "dissemination", "pairwise", "linear"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

CollectiveAlgorithm algorithm_from_name(std::string_view name, std::string_view item) {
  for (std::size_t i = 0; i < kAlgorithmNames.size(); ++i)
    if (kAlgorithmNames[i] == name) return static_cast<CollectiveAlgorithm>(i);
  throw Error(
      fmt::format("--coll-algo '{}': unknown algorithm '{}' (expected one of analytic, "
                  "binomial, recursive_doubling, ring, dissemination, pairwise, linear)",
                  item, name));
}

CollectiveFamily family_from_name(std::string_view name, std::string_view item) {
  for (std::size_t i = 0; i < kFamilyNames.size(); ++i)
    if (kFamilyNames[i] == name) return static_cast<CollectiveFamily>(i);
  throw Error(
      fmt::format("--coll-algo '{}': unknown collective '{}' (expected one of barrier, "
                  "bcast, reduce, allreduce, gather, scatter, allgather, alltoall, "
                  "reduce_scatter, scan)",
                  item, name));
}

}  // namespace

CollectiveFamily family_of(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Bcast:
      return CollectiveFamily::Bcast;
    case CollectiveOp::Reduce:
      return CollectiveFamily::Reduce;
    case CollectiveOp::Allreduce:
      return CollectiveFamily::Allreduce;
    case CollectiveOp::Gather:
    case CollectiveOp::Gatherv:
      return CollectiveFamily::Gather;
    case CollectiveOp::Scatter:
    case CollectiveOp::Scatterv:
      return CollectiveFamily::Scatter;
    case CollectiveOp::Allgather:
    case CollectiveOp::Allgatherv:
      return CollectiveFamily::Allgather;
    case CollectiveOp::Alltoall:
    case CollectiveOp::Alltoallv:
    case CollectiveOp::Alltoallw:
      return CollectiveFamily::Alltoall;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::ReduceScatterBlock:
      return CollectiveFamily::ReduceScatter;
    case CollectiveOp::Scan:
    case CollectiveOp::Exscan:
      return CollectiveFamily::Scan;
    default:
      return CollectiveFamily::Barrier;  // Barrier, handle and window management
  }
}

std::string_view to_string(CollectiveFamily f) { return kFamilyNames[static_cast<int>(f)]; }
std::string_view to_string(CollectiveAlgorithm a) { return kAlgorithmNames[static_cast<int>(a)]; }

bool supports(CollectiveFamily f, CollectiveAlgorithm a) {
  using A = CollectiveAlgorithm;
  if (a == A::Analytic) return true;
  switch (f) {
    case CollectiveFamily::Barrier:
      return a == A::Dissemination || a == A::Binomial;
    case CollectiveFamily::Bcast:
      return a == A::Binomial || a == A::Linear || a == A::Ring;
    case CollectiveFamily::Reduce:
    case CollectiveFamily::Gather:
    case CollectiveFamily::Scatter:
      return a == A::Binomial || a == A::Linear;
    case CollectiveFamily::Allreduce:
    case CollectiveFamily::Allgather:
      return a == A::RecursiveDoubling || a == A::Ring || a == A::Binomial;
    case CollectiveFamily::Alltoall:
      return a == A::Pairwise || a == A::Linear;
    case CollectiveFamily::ReduceScatter:
      return a == A::Ring || a == A::Binomial;
    case CollectiveFamily::Scan:
      return a == A::Linear || a == A::RecursiveDoubling;
  }
  return false;
}

void CollectiveAlgorithms::set(CollectiveFamily f, CollectiveAlgorithm a) {
  if (!supports(f, a)) throw Error(fmt::format("--coll-algo: {} has no {} algorithm", to_string(f), to_string(a)));
  by_family[static_cast<int>(f)] = a;
}

void CollectiveAlgorithms::set_all(CollectiveAlgorithm a) {
  for (int f = 0; f < kCollectiveFamilyCount; ++f) set(static_cast<CollectiveFamily>(f), a);
}

CollectiveAlgorithms parse_collective_algorithms(std::string_view text, CollectiveAlgorithms result) {
  if (trim(text).empty()) throw Error("--coll-algo: empty value");
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) throw Error("--coll-algo: empty item in the list");
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {  // every family that has this algorithm
      const CollectiveAlgorithm a = algorithm_from_name(item, item);
      for (int f = 0; f < kCollectiveFamilyCount; ++f)
        if (supports(static_cast<CollectiveFamily>(f), a)) result.by_family[f] = a;
      continue;
    }
    const CollectiveFamily f = family_from_name(trim(item.substr(0, eq)), item);
    const CollectiveAlgorithm a = algorithm_from_name(trim(item.substr(eq + 1)), item);
    if (!supports(f, a))
      throw Error(fmt::format("--coll-algo '{}': {} has no {} algorithm", item, to_string(f), to_string(a)));
    result.by_family[static_cast<int>(f)] = a;
  }
  return result;
}

std::string format_collective_algorithms(const CollectiveAlgorithms& a) {
  std::string out;
  for (int f = 0; f < kCollectiveFamilyCount; ++f)
    out += fmt::format("{}{}={}", f ? "," : "", kFamilyNames[f], to_string(a.by_family[f]));
  return out;
}

}  // namespace wisp
