// Mailboxes created on first use, communicator-local ranks, analytic synchronisation points.
// See world.hpp.
#include "world.hpp"

#include "collective_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace wisp::replay_impl {

// Mailbox::by_name and set_receiver are simcalls: other actors run meanwhile and may grow
// `channels`, so no reference into it is held across them.
sg::Mailbox* World::mailbox(std::uint32_t channel, bool eager) {
  if (sg::Mailbox* box = eager ? channels[channel].eager : channels[channel].rendezvous) return box;
  std::string name(1, eager ? 'e' : 'r');  // not "literal" + std::string&&: GCC 12 warns falsely on it
  name += std::to_string(channel);
  sg::Mailbox* box = sg::Mailbox::by_name(name);
  if (eager) box->set_receiver(actors[channels[channel].receiver]);
  (eager ? channels[channel].eager : channels[channel].rendezvous) = box;
  return box;
}

bool World::stays_on_host(Rank rank, EventIndex first, EventIndex last, bool finalize_barrier) const {
  return wisp::stays_on_host(trace, rank, first, last, finalize_barrier, host_of_rank);
}

std::uint64_t World::simulated_bytes(Rank sender, Rank receiver, std::uint64_t bytes) const {
  const auto& factors = inside && same_host(sender, receiver) ? inside->size_factor : size_factor;
  if (factors.empty() || factors[receiver].empty()) return bytes;
  std::uint32_t k = 0;
  for (std::uint64_t b = bytes; b > 0; b >>= 1) ++k;
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * factors[receiver][k]));
}

double World::latency(std::uint32_t channel) {
  Channel& c = channels[channel];
  if (c.latency < 0) {
    std::vector<sg::Link*> links;
    double l = 0;
    host_of_rank[c.sender]->route_to(host_of_rank[c.receiver], links, &l);
    c.latency = l;
  }
  return c.latency;
}

bool World::fixed(std::uint32_t channel) {
  Channel& c = channels[channel];
  if (c.fixed < 0) c.fixed = fixed_transfers.fixed_route(host_of_rank[c.sender], host_of_rank[c.receiver]);
  return c.fixed != 0;
}

double World::last_arrival_in_flight() {
  double last = 0;
  for (std::uint32_t i = 0; i < channels.size(); ++i)
    for (const Channel::Sent& m : channels[i].in_flight) {
      if (m.taken) continue;
      const Channel& c = channels[i];
      const double d =
          m.bytes == 0
              ? latency(i)
              : fixed_transfers.duration(host_of_rank[c.sender], host_of_rank[c.receiver], m.bytes).value_or(0);
      last = std::max(last, m.time + d);
    }
  return last;
}

std::uint32_t World::collective_channel(CommId comm, Rank source, Rank destination) {
  const auto& members = trace.defs.comms[comm].members;
  const auto n = static_cast<std::uint32_t>(members.size());
  if (n <= 2048) {
    auto& table = collective_table[comm];
    if (table.empty()) table.assign(static_cast<std::size_t>(n) * n, kNone);
    const auto& local = local_rank_of(comm);
    std::uint32_t& slot = table[static_cast<std::size_t>(local[source]) * n + local[destination]];
    if (slot == kNone) {
      slot = static_cast<std::uint32_t>(channels.size());
      channels.push_back(Channel{source, destination});
    }
    return slot;
  }
  const std::uint64_t key =
      (static_cast<std::uint64_t>(comm) << 44) | (static_cast<std::uint64_t>(source) << 22) | destination;
  const auto [it, inserted] = collective_channels.try_emplace(key, static_cast<std::uint32_t>(channels.size()));
  if (inserted) channels.push_back(Channel{source, destination});
  return it->second;
}

const std::vector<std::uint32_t>& World::local_rank_of(CommId comm) {
  auto& map = local_ranks[comm];
  if (map.empty()) map = replay_impl::local_ranks(trace, comm);
  return map;
}

SyncPoint& World::sync(std::uint64_t key, std::uint32_t size, std::uint32_t root) {
  SyncPoint& s = syncs[key];
  if (s.present.empty()) {
    s.size = size;
    s.root = root;
    s.present.assign(size, 0);
  }
  return s;
}

// The state is updated completely before any semaphore is released: a release is a simcall
// during which other members may arrive.
void arrive(World& w, SyncPoint& s, std::uint32_t local) {
  std::vector<Rank> wake;
  s.present[local] = 1;
  if (++s.arrived == s.size) wake.swap(s.wait_all);
  if (local == s.root) wake.insert(wake.end(), s.wait_root.begin(), s.wait_root.end()), s.wait_root.clear();
  while (s.prefix < s.size && s.present[s.prefix]) {
    if (!s.wait_prefix.empty() && s.wait_prefix[s.prefix] != kNone) wake.push_back(s.wait_prefix[s.prefix]);
    ++s.prefix;
  }
  for (Rank r : wake) w.wakeup[r]->release();
}

void wait_for_all(World& w, SyncPoint& s, Rank me) {
  if (s.arrived == s.size) return;
  s.wait_all.push_back(me);
  w.wakeup[me]->acquire();
}

void wait_for_root(World& w, SyncPoint& s, Rank me) {
  if (s.root == kNone || s.present[s.root]) return;
  s.wait_root.push_back(me);
  w.wakeup[me]->acquire();
}

void wait_for_prefix(World& w, SyncPoint& s, std::uint32_t local, Rank me) {
  if (s.prefix > local) return;
  if (s.wait_prefix.empty()) s.wait_prefix.assign(s.size, kNone);
  s.wait_prefix[local] = me;
  w.wakeup[me]->acquire();
}

void leave(World& w, std::uint64_t key) {
  const auto it = w.syncs.find(key);
  if (it != w.syncs.end() && ++it->second.left == it->second.size) w.syncs.erase(it);
}

}  // namespace wisp::replay_impl
