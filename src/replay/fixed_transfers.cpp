// Transfers whose time does not depend on when they start. See fixed_transfers.hpp.
#include "fixed_transfers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace wisp::replay_impl {

namespace {

// Whether every link from `from` to `to` gives each flow its whole bandwidth.
bool fatpipe_route(const sg::Host* from, const sg::Host* to) {
  std::vector<sg::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  for (const sg::Link* l : links)
    if (l->get_sharing_policy() != sg::Link::SharingPolicy::FATPIPE) return false;
  return true;
}

}  // namespace

std::size_t FixedTransfers::Hash::operator()(const Key& k) const {
  const std::hash<const void*> h;
  return h(k.from) * 1000003u ^ h(k.to) * 8191u ^ std::hash<std::uint64_t>()(k.bytes);
}

// Both ways: a flow also loads its reverse route (SimGrid's network/crosstraffic).
bool FixedTransfers::fixed_route(const sg::Host* from, const sg::Host* to) {
  if (!enabled_) return false;
  const auto [it, added] = routes_.try_emplace(Key{from, to, 0}, false);
  if (added) it->second = fatpipe_route(from, to) && fatpipe_route(to, from);
  return it->second;
}

std::optional<double> FixedTransfers::duration(const sg::Host* from, const sg::Host* to, std::uint64_t bytes) const {
  const auto it = probes_.find(Key{from, to, bytes});
  return it == probes_.end() ? std::nullopt : it->second.duration;
}

void FixedTransfers::probe(sg::Host* from, sg::Host* to, std::uint64_t bytes) {
  const Key key{from, to, bytes};
  if (!probes_.try_emplace(key).second) return;
  sg::Actor::create("wisp-probe", from, [this, key, from, to, bytes] {
    const double start = sg::Engine::get_clock();
    sg::Comm::sendto(from, to, bytes);
    Probe& p = probes_[key];
    p.duration = sg::Engine::get_clock() - start;
    for (auto& wake : p.waiting) wake();
    p.waiting.clear();
  });
}

void FixedTransfers::when_known(const sg::Host* from, const sg::Host* to, std::uint64_t bytes,
                                std::function<void()> wake) {
  probes_[Key{from, to, bytes}].waiting.push_back(std::move(wake));
}

}  // namespace wisp::replay_impl
