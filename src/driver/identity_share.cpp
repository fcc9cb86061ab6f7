// Identity runs as bytes. See identity_share.hpp. Layout (native byte order: the ranks of one job
// run the same binary): runtime and minima-model runtime (double, NaN: none), whether residuals follow (u64), then the
// rank count and, per rank, its call count and the residuals (u64, doubles).
#include "wisp/driver/identity_share.hpp"

#include <cstdint>
#include <cstring>
#include <memory>

#include "wisp/error.hpp"

namespace wisp {

namespace {

template <typename T>
void put(std::string& out, const T* values, std::size_t n) {
  out.append(reinterpret_cast<const char*>(values), n * sizeof(T));
}

template <typename T>
void put(std::string& out, T value) {
  put(out, &value, 1);
}

// Reads values in order; running past the end is an error, not a read of other memory.
struct Reader {
  const std::string& bytes;
  std::size_t at = 0;

  template <typename T>
  void get(T* values, std::size_t n) {
    if (n > (bytes.size() - at) / sizeof(T)) throw Error("a shared identity run is truncated");
    std::memcpy(values, bytes.data() + at, n * sizeof(T));
    at += n * sizeof(T);
  }
  template <typename T>
  T get() {
    T value{};
    get(&value, 1);
    return value;
  }
};

}  // namespace

std::string encode_identity(const IdentityRun& identity) {
  std::string out;
  put(out, identity.replay.runtime);
  put(out, identity.minima_runtime);
  const CallResiduals* residuals = identity.replay.residuals.get();
  put<std::uint64_t>(out, residuals ? 1 : 0);
  if (!residuals) return out;
  put<std::uint64_t>(out, residuals->by_rank.size());
  for (const std::vector<double>& rank : residuals->by_rank) {
    put<std::uint64_t>(out, rank.size());
    put(out, rank.data(), rank.size());
  }
  return out;
}

IdentityRun decode_identity(const std::string& bytes, const Scenario& scenario, const Trace& measured) {
  IdentityRun id = identity_setup(scenario, measured);
  Reader in{bytes};
  id.replay.runtime = in.get<double>();
  id.minima_runtime = in.get<double>();
  if (in.get<std::uint64_t>() != 0) {
    CallResiduals residuals;
    if (in.get<std::uint64_t>() != measured.rank_count())
      throw Error("a shared identity run is of another trace (its rank count differs)");
    residuals.by_rank.resize(measured.rank_count());
    for (std::vector<double>& rank : residuals.by_rank) {
      const auto n = in.get<std::uint64_t>();
      if (n > bytes.size() / sizeof(double)) throw Error("a shared identity run is truncated");
      rank.resize(n);
      in.get(rank.data(), n);
    }
    id.replay.residuals = std::make_shared<const CallResiduals>(std::move(residuals));
  }
  if (in.at != bytes.size()) throw Error("a shared identity run has bytes left over");
  return id;
}

}  // namespace wisp
