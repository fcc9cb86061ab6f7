// How the replay decomposes each collective operation into point-to-point messages, chosen per
// collective family ("allreduce=ring,bcast=binomial"), plus the "analytic" algorithm that
// reproduces the generators' model rules exactly (see include/wisp/generate/model.hpp).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "wisp/trace/event.hpp"

namespace wisp {

// Collective operations grouped by the algorithms that implement them. The v-variants join
// their family (Gatherv → Gather); handle creation/destruction (MPI_Init, MPI_Comm_split,
// MPI_Finalize records) and MPI_Barrier form Barrier.
enum class CollectiveFamily : std::uint8_t {
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Gather,
  Scatter,
  Allgather,
  Alltoall,
  ReduceScatter,
  Scan,
};
inline constexpr int kCollectiveFamilyCount = 10;
CollectiveFamily family_of(CollectiveOp op);
std::string_view to_string(CollectiveFamily f);

enum class CollectiveAlgorithm : std::uint8_t {
  Analytic,           // synchronise by the model's class rule, then ceil(log2 n) transfers of b
  Binomial,           // binomial tree (Barrier, Allreduce, Allgather, ReduceScatter: tree-based
                      //   reduce/gather followed by bcast/scatter)
  RecursiveDoubling,  // Allreduce, Allgather (power-of-two sizes, else ring), Scan
  Ring,               // Allreduce (reduce-scatter + allgather), Allgather, ReduceScatter, Bcast (chain)
  Dissemination,      // Barrier
  Pairwise,           // Alltoall
  Linear,             // root talks to everyone (Bcast, Reduce, Gather, Scatter), Alltoall (all at
                      //   once), Scan (chain)
};
std::string_view to_string(CollectiveAlgorithm a);

// The algorithm of every family. Defaults: barrier=dissemination, bcast/reduce/gather/scatter=
// binomial, allreduce=recursive_doubling, allgather=ring, alltoall=pairwise,
// reduce_scatter=ring, scan=linear.
struct CollectiveAlgorithms {
  std::array<CollectiveAlgorithm, kCollectiveFamilyCount> by_family = {
      CollectiveAlgorithm::Dissemination, CollectiveAlgorithm::Binomial,
      CollectiveAlgorithm::Binomial,      CollectiveAlgorithm::RecursiveDoubling,
      CollectiveAlgorithm::Binomial,      CollectiveAlgorithm::Binomial,
      CollectiveAlgorithm::Ring,          CollectiveAlgorithm::Pairwise,
      CollectiveAlgorithm::Ring,          CollectiveAlgorithm::Linear,
  };

  CollectiveAlgorithm of(CollectiveOp op) const { return by_family[static_cast<int>(family_of(op))]; }
  void set(CollectiveFamily f, CollectiveAlgorithm a);  // throws wisp::Error if f has no such algorithm
  void set_all(CollectiveAlgorithm a);                  // e.g. Analytic everywhere
};

bool supports(CollectiveFamily f, CollectiveAlgorithm a);

// Parses "analytic" (a bare algorithm: every family that has it, e.g. "binomial" leaves alltoall),
// "allreduce=ring,bcast=linear" or a mix ("analytic,allreduce=ring": later items win). Names: barrier, bcast, reduce,
// allreduce, gather, scatter, allgather, alltoall, reduce_scatter, scan; binomial, recursive_doubling, ring,
// dissemination, pairwise, linear, analytic. Throws wisp::Error naming the bad item.
CollectiveAlgorithms parse_collective_algorithms(std::string_view text, CollectiveAlgorithms start = {});
std::string format_collective_algorithms(const CollectiveAlgorithms& a);

}  // namespace wisp
