// Derived structures: message matching, collective instances, MPI call spans. See derive.hpp.
#include "wisp/trace/derive.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace wisp {

namespace {

struct ChannelKey {
  CommId comm;
  Rank source;
  Rank dest;
  std::int32_t tag;
  bool operator==(const ChannelKey&) const = default;
};

struct ChannelKeyHash {
  std::size_t operator()(const ChannelKey& k) const {
    std::uint64_t h = (static_cast<std::uint64_t>(k.source) << 32) ^ k.dest;
    h ^= (static_cast<std::uint64_t>(k.comm) << 40) ^ static_cast<std::uint32_t>(k.tag) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull);
  }
};

// Sends of one (comm, source, dest, tag) channel in posting order, consumed by receives.
struct Channel {
  std::vector<std::uint32_t> sends;
  std::size_t next = 0;
};

bool is_send(EventKind k) { return k == EventKind::MpiSend || k == EventKind::MpiIsend; }
bool is_recv(EventKind k) { return k == EventKind::MpiRecv || k == EventKind::MpiIrecv; }

std::string describe_side(const Trace& t, Rank r, const P2P& p, std::string_view what) {
  const auto& comm = t.defs.comms[p.comm];
  return fmt::format("rank {} event {}: {} {} rank {} on {} tag {} ({} bytes) at {:.9f} s", r,
                     p.event, what, what == "send" ? "to" : "from", p.peer, comm.name, p.tag,
                     p.bytes, t.event(r, p.event).time);
}

}  // namespace

void match_messages(Trace& trace) {
  trace.messages.clear();
  std::unordered_map<ChannelKey, Channel, ChannelKeyHash> channels;
  for (Rank s = 0; s < trace.rank_count(); ++s) {
    auto& rt = trace.ranks[s];
    for (std::uint32_t i = 0; i < rt.p2p.size(); ++i) {
      P2P& p = rt.p2p[i];
      p.message = kNone;
      if (p.event == kNone || !is_send(rt.events[p.event].kind)) continue;
      channels[ChannelKey{p.comm, s, p.peer, p.tag}].sends.push_back(i);
    }
  }
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    auto& rt = trace.ranks[r];
    for (std::uint32_t j = 0; j < rt.p2p.size(); ++j) {
      P2P& p = rt.p2p[j];
      if (p.event == kNone || !is_recv(rt.events[p.event].kind)) continue;
      const auto it = channels.find(ChannelKey{p.comm, p.peer, r, p.tag});
      if (it == channels.end() || it->second.next == it->second.sends.size()) {
        trace.anomalies.add(AnomalyKind::UnmatchedReceive,
                            [&] { return describe_side(trace, r, p, "receive"); });
        continue;
      }
      const std::uint32_t send = it->second.sends[it->second.next++];
      const auto id = static_cast<std::uint32_t>(trace.messages.size());
      trace.messages.push_back(Message{p.peer, r, send, j});
      P2P& sp = trace.ranks[p.peer].p2p[send];
      sp.message = p.message = id;
      const double sent_at = trace.event(p.peer, sp.event).time;
      const double received_at = rt.events[p.event].time;
      if (received_at < sent_at) {
        trace.anomalies.add(AnomalyKind::ReceiveBeforeSend, [&] {
          return fmt::format("message rank {} -> {} tag {} ({} bytes): received at {:.9f} s, "
                             "{:.3f} us before its send starts", p.peer, r, p.tag, p.bytes,
                             received_at, (sent_at - received_at) * 1e6);
        });
      }
    }
  }
  for (Rank s = 0; s < trace.rank_count(); ++s) {
    const auto& rt = trace.ranks[s];
    for (const P2P& p : rt.p2p)
      if (p.event != kNone && is_send(rt.events[p.event].kind) && p.message == kNone)
        trace.anomalies.add(AnomalyKind::UnmatchedSend,
                            [&] { return describe_side(trace, s, p, "send"); });
  }
}

void match_collectives(Trace& trace) {
  trace.collectives.clear();
  trace.collective_members.clear();
  const auto& comms = trace.defs.comms;
  const Rank P = trace.rank_count();

  // Instance number of each record = how many earlier records its rank has on the same comm.
  std::vector<std::uint32_t> per_comm_count(comms.size() * P, 0);
  std::vector<std::uint32_t> instances_of_comm(comms.size(), 0);
  for (Rank r = 0; r < P; ++r)
    for (auto& c : trace.ranks[r].collectives) {
      c.instance = kNone;
      if (c.comm == kNone || c.comm >= comms.size() || comms[c.comm].self) continue;
      const std::uint32_t n = per_comm_count[c.comm * P + r]++;
      instances_of_comm[c.comm] = std::max(instances_of_comm[c.comm], n + 1);
    }

  // Instance ids: comm by comm; member slots: comm size each, filled at the member's local rank.
  std::vector<std::uint32_t> first_instance(comms.size(), 0);
  std::vector<std::vector<std::uint32_t>> local_rank(comms.size());
  for (CommId c = 0; c < comms.size(); ++c) {
    first_instance[c] = static_cast<std::uint32_t>(trace.collectives.size());
    if (instances_of_comm[c] == 0) continue;
    local_rank[c].assign(P, kNone);
    for (std::uint32_t l = 0; l < comms[c].members.size(); ++l)
      if (comms[c].members[l] < P) local_rank[c][comms[c].members[l]] = l;
    for (std::uint32_t n = 0; n < instances_of_comm[c]; ++n) {
      CollectiveInstance inst;
      inst.comm = c;
      inst.first = static_cast<std::uint32_t>(trace.collective_members.size());
      trace.collectives.push_back(inst);
      trace.collective_members.resize(trace.collective_members.size() + comms[c].size());
    }
  }
  std::fill(per_comm_count.begin(), per_comm_count.end(), 0);
  for (Rank r = 0; r < P; ++r) {
    auto& records = trace.ranks[r].collectives;
    for (std::uint32_t k = 0; k < records.size(); ++k) {
      auto& c = records[k];
      if (c.comm == kNone || c.comm >= comms.size() || comms[c.comm].self) continue;
      const std::uint32_t n = per_comm_count[c.comm * P + r]++;
      const std::uint32_t local = local_rank[c.comm][r];
      CollectiveInstance& inst = trace.collectives[first_instance[c.comm] + n];
      if (local == kNone) {
        trace.anomalies.add(AnomalyKind::MismatchedCollective, [&] {
          return fmt::format("rank {} event {}: {} on {} but the rank is not a member", r, c.end,
                             to_string(c.op), comms[c.comm].name);
        });
        continue;
      }
      c.instance = first_instance[c.comm] + n;
      trace.collective_members[inst.first + local] = CollectiveMember{r, k};
      if (inst.count == 0) {
        inst.op = c.op;
        inst.root = c.root;
      } else if (inst.op != c.op) {
        trace.anomalies.add(AnomalyKind::MismatchedCollective, [&] {
          return fmt::format("{} instance {}: rank {} records {}, others {}", comms[c.comm].name,
                             n, r, to_string(c.op), to_string(inst.op));
        });
      }
      ++inst.count;
    }
  }

  // Complete instances keep their slots; incomplete ones are compacted and reported.
  for (std::uint32_t i = 0; i < trace.collectives.size(); ++i) {
    CollectiveInstance& inst = trace.collectives[i];
    const std::uint32_t size = comms[inst.comm].size();
    inst.complete = inst.count == size;
    if (inst.complete) continue;
    auto* m = trace.collective_members.data() + inst.first;
    std::stable_partition(m, m + size, [](const CollectiveMember& x) { return x.rank != kNone; });
    trace.anomalies.add(AnomalyKind::IncompleteCollective, [&] {
      return fmt::format("{} on {} (instance {}): {} of {} members took part", to_string(inst.op),
                         comms[inst.comm].name, i - first_instance[inst.comm], inst.count, size);
    });
  }

  // Self communicators: every record is an instance of its own.
  for (Rank r = 0; r < P; ++r) {
    auto& records = trace.ranks[r].collectives;
    for (std::uint32_t k = 0; k < records.size(); ++k) {
      auto& c = records[k];
      if (c.comm == kNone || c.comm >= comms.size() || !comms[c.comm].self) continue;
      c.instance = static_cast<std::uint32_t>(trace.collectives.size());
      CollectiveInstance inst;
      inst.comm = c.comm;
      inst.first = static_cast<std::uint32_t>(trace.collective_members.size());
      inst.count = 1;
      inst.root = c.root;
      inst.op = c.op;
      inst.complete = true;
      trace.collectives.push_back(inst);
      trace.collective_members.push_back(CollectiveMember{r, k});
    }
  }
}

void find_mpi_calls(Trace& trace) {
  const auto& defs = trace.defs;
  for (auto& rt : trace.ranks) {
    rt.mpi_calls.clear();
    std::vector<EventIndex> open;
    for (EventIndex i = 0; i < rt.events.size(); ++i) {
      const Event& e = rt.events[i];
      if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
      if (!is_mpi(defs.region_of(e.ref).kind)) continue;
      if (e.kind == EventKind::Enter) {
        open.push_back(i);
      } else if (!open.empty()) {
        rt.mpi_calls.push_back(CallSpan{open.back(), i});
        open.pop_back();
      }
    }
    if (!std::is_sorted(rt.mpi_calls.begin(), rt.mpi_calls.end(),
                        [](const CallSpan& a, const CallSpan& b) { return a.enter < b.enter; }))
      std::sort(rt.mpi_calls.begin(), rt.mpi_calls.end(),
                [](const CallSpan& a, const CallSpan& b) { return a.enter < b.enter; });
  }
}

void derive(Trace& trace) {
  for (auto kind : {AnomalyKind::UnmatchedSend, AnomalyKind::UnmatchedReceive,
                    AnomalyKind::ReceiveBeforeSend, AnomalyKind::MismatchedCollective})
    trace.anomalies.reset(kind);
  match_messages(trace);
  match_collectives(trace);
  find_mpi_calls(trace);
}

}  // namespace wisp
