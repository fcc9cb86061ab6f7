// Transfers whose time does not depend on when they start: on a route that no other transfer can
// slow down (every link FATPIPE, both ways) of a platform constant in time, a transfer of a size
// takes the same time whenever it starts, and the same on every route of the same links' latencies
// and bandwidths (a route class). The first one of a class and size is simulated by a probe actor;
// eager messages on such routes then travel without a SimGrid activity (rank_actor.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/forward.h>

namespace wisp::replay_impl {

namespace sg = simgrid::s4u;

class FixedTransfers {
 public:
  // `enabled`: the platform and SimGrid's models are constant in time; else no route is fixed.
  explicit FixedTransfers(bool enabled) : enabled_(enabled) {}
  // Whether transfers from `from` to `to` take a fixed time (the answer is kept per route).
  bool fixed_route(const sg::Host* from, const sg::Host* to);
  // The duration of a `bytes` transfer on a fixed route, once a probe has measured it.
  std::optional<double> duration(const sg::Host* from, const sg::Host* to, std::uint64_t bytes);
  // Whether the probe of such a transfer has started (or is over).
  bool started(const sg::Host* from, const sg::Host* to, std::uint64_t bytes);
  // Starts a probe of the transfer unless one has started: a transfer from now, in an actor of its
  // own. It is over no later than a message of the same size sent now or later arrives.
  void probe(sg::Host* from, sg::Host* to, std::uint64_t bytes);
  // Calls `wake` once the probe of this transfer is over (the caller then blocks until woken).
  void when_known(const sg::Host* from, const sg::Host* to, std::uint64_t bytes, std::function<void()> wake);
  std::size_t probes() const { return probes_.size(); }

 private:
  struct Key {
    const void* a;
    std::uint64_t b;
    bool operator==(const Key& o) const { return a == o.a && b == o.b; }
  };
  struct Hash {
    std::size_t operator()(const Key& k) const;
  };
  struct Probe {
    std::optional<double> duration;              // set when the probe is over
    std::vector<std::function<void()>> waiting;  // to wake then
  };
  // The route's class (its links' latency and bandwidth, both ways), -1 if it is not fixed.
  int route_class(const sg::Host* from, const sg::Host* to);
  Key size_key(const sg::Host* from, const sg::Host* to, std::uint64_t bytes);

  bool enabled_;
  std::unordered_map<Key, int, Hash> routes_;  // (from, to as integer): class or -1
  std::map<std::vector<std::pair<double, double>>, int> classes_;
  std::unordered_map<Key, Probe, Hash> probes_;  // (class, bytes)
};

}  // namespace wisp::replay_impl
