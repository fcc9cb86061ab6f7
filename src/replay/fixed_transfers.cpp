// Transfers whose time does not depend on when they start. See fixed_transfers.hpp.
#include "fixed_transfers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace wisp::replay_impl {

namespace {

// Appends each link's latency and bandwidth from `from` to `to`; false if a link shares its
// bandwidth between flows (anything but FATPIPE).
bool add_fatpipe_links(const sg::Host* from, const sg::Host* to, std::vector<std::pair<double, double>>& out) {
  std::vector<sg::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  for (const sg::Link* l : links) {
    if (l->get_sharing_policy() != sg::Link::SharingPolicy::FATPIPE) return false;
    out.emplace_back(l->get_latency(), l->get_bandwidth());
  }
  return true;
}

}  // namespace

std::size_t FixedTransfers::Hash::operator()(const Key& k) const {
  return std::hash<const void*>()(k.a) * 1000003u ^ std::hash<std::uint64_t>()(k.b);
}

// Both ways: a flow also loads its reverse route (SimGrid's network/crosstraffic).
int FixedTransfers::route_class(const sg::Host* from, const sg::Host* to) {
  const auto [it, added] = routes_.try_emplace(Key{from, reinterpret_cast<std::uintptr_t>(to)}, -1);
  if (!added || !enabled_) return it->second;
  std::vector<std::pair<double, double>> links;
  const bool fatpipe = add_fatpipe_links(from, to, links);
  links.emplace_back(-1, -1);  // between the two ways
  if (fatpipe && add_fatpipe_links(to, from, links))
    it->second = classes_.try_emplace(std::move(links), static_cast<int>(classes_.size())).first->second;
  return it->second;
}

bool FixedTransfers::fixed_route(const sg::Host* from, const sg::Host* to) { return route_class(from, to) >= 0; }

FixedTransfers::Key FixedTransfers::size_key(const sg::Host* from, const sg::Host* to, std::uint64_t bytes) {
  return Key{reinterpret_cast<const void*>(static_cast<std::uintptr_t>(route_class(from, to))), bytes};
}

std::optional<double> FixedTransfers::duration(const sg::Host* from, const sg::Host* to, std::uint64_t bytes) {
  const auto it = probes_.find(size_key(from, to, bytes));
  return it == probes_.end() ? std::nullopt : it->second.duration;
}

bool FixedTransfers::started(const sg::Host* from, const sg::Host* to, std::uint64_t bytes) {
  return probes_.count(size_key(from, to, bytes)) != 0;
}

void FixedTransfers::probe(sg::Host* from, sg::Host* to, std::uint64_t bytes) {
  const Key key = size_key(from, to, bytes);
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
  probes_[size_key(from, to, bytes)].waiting.push_back(std::move(wake));
}

}  // namespace wisp::replay_impl
