// Identity runs as bytes. See identity_share.hpp. Layout (native byte order: the ranks of one job
// run the same binary): runtime and minima-model runtime (double, NaN: none), whether residuals follow (u64), then the
// rank count and, per rank, its residuals, its calls' network parts and its partner waits (each a u64 count and
// the values: doubles, doubles, PartnerWait records).
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

template <typename T>
void put_vector(std::string& out, const std::vector<T>& values) {
  put<std::uint64_t>(out, values.size());
  put(out, values.data(), values.size());
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
  void get_vector(std::vector<T>& values) {
    const auto n = get<std::uint64_t>();
    if (n > bytes.size() / sizeof(T)) throw Error("a shared identity run is truncated");
    values.resize(n);
    get(values.data(), n);
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
  const std::size_t ranks = residuals->by_rank.size();
  put<std::uint64_t>(out, ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    put_vector(out, residuals->by_rank[r]);
    put_vector(out, r < residuals->network.size() ? residuals->network[r] : std::vector<double>());
    put_vector(out, r < residuals->waits.size() ? residuals->waits[r] : std::vector<PartnerWait>());
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
    const std::size_t ranks = measured.rank_count();
    residuals.by_rank.resize(ranks), residuals.network.resize(ranks), residuals.waits.resize(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      in.get_vector(residuals.by_rank[r]);
      in.get_vector(residuals.network[r]);
      in.get_vector(residuals.waits[r]);
    }
    id.replay.residuals = std::make_shared<const CallResiduals>(std::move(residuals));
  }
  if (in.at != bytes.size()) throw Error("a shared identity run has bytes left over");
  return id;
}

}  // namespace wisp
