// Transfers whose time does not depend on when they start: on a route that no other transfer can
// slow down (every link FATPIPE, both ways) of a platform constant in time, a transfer of a size
// takes the same time whenever it starts. The first one of a route and size is simulated by a probe
// actor; eager messages on such routes then travel without a SimGrid activity (rank_actor.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include <simgrid/forward.h>

namespace wisp::replay_impl {

namespace sg = simgrid::s4u;

class FixedTransfers {
 public:
  // `enabled`: the platform is constant in time; else no route is fixed.
  explicit FixedTransfers(bool enabled) : enabled_(enabled) {}
  // Whether transfers from `from` to `to` take a fixed time (the answer is kept per route).
  bool fixed_route(const sg::Host* from, const sg::Host* to);
  // The duration of a `bytes` transfer on a fixed route, once a probe has measured it.
  std::optional<double> duration(const sg::Host* from, const sg::Host* to, std::uint64_t bytes) const;
  // Starts a probe of the transfer unless one is known or on its way: a transfer from now, in an
  // actor of its own. Its arrival is no later than that of a message of the same size sent now or later.
  void probe(sg::Host* from, sg::Host* to, std::uint64_t bytes);
  // Calls `wake` once the probe of this transfer is over (the caller then blocks until woken).
  void when_known(const sg::Host* from, const sg::Host* to, std::uint64_t bytes, std::function<void()> wake);
  std::size_t probes() const { return probes_.size(); }

 private:
  struct Key {
    const sg::Host *from, *to;
    std::uint64_t bytes;
    bool operator==(const Key& o) const { return from == o.from && to == o.to && bytes == o.bytes; }
  };
  struct Hash {
    std::size_t operator()(const Key& k) const;
  };
  struct Probe {
    std::optional<double> duration;              // set when the probe is over
    std::vector<std::function<void()>> waiting;  // to wake then
  };

  bool enabled_;
  std::unordered_map<Key, Probe, Hash> probes_;
  std::unordered_map<Key, bool, Hash> routes_;  // bytes = 0: whether the route is fixed
};

}  // namespace wisp::replay_impl
