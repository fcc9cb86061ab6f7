// Derived structures: message matching, collective instances, MPI call spans. See derive.hpp.
#include "wisp/trace/derive.hpp"

#include <algorithm>
#include <future>
#include <thread>

#include <fmt/format.h>

#include "wisp/error.hpp"

namespace wisp {

namespace {

struct ChannelKey {
  CommId comm;
  Rank source;
  Rank dest;
  std::int32_t tag;
  bool operator==(const ChannelKey&) const = default;
};

// Channel ids by key: open addressing with linear probing. The number of distinct channels is
// small compared with the number of messages, so the table stays cache-resident.
class ChannelTable {
 public:
  // Id of `k`, inserting it if new.
  std::uint32_t insert(const ChannelKey& k) {
    if ((keys_.size() + 1) * 2 > slots_.size()) grow();
    std::size_t i = hash(k) & mask_;
    while (slots_[i] != kNone) {
      if (keys_[slots_[i]] == k) return slots_[i];
      i = (i + 1) & mask_;
    }
    slots_[i] = static_cast<std::uint32_t>(keys_.size());
    keys_.push_back(k);
    return slots_[i];
  }
  // Id of `k`, or kNone.
  std::uint32_t find(const ChannelKey& k) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = hash(k) & mask_; slots_[i] != kNone; i = (i + 1) & mask_)
      if (keys_[slots_[i]] == k) return slots_[i];
    return kNone;
  }
  std::size_t size() const { return keys_.size(); }

 private:
  static std::size_t hash(const ChannelKey& k) {
    std::uint64_t h = (static_cast<std::uint64_t>(k.source) << 32 | k.dest) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<std::uint64_t>(k.comm) << 32 | static_cast<std::uint32_t>(k.tag)) * 0xBF58476D1CE4E5B9ull;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
  void grow() {
    slots_.assign(slots_.empty() ? 64 : slots_.size() * 2, kNone);
    mask_ = slots_.size() - 1;
    for (std::uint32_t id = 0; id < keys_.size(); ++id) {
      std::size_t i = hash(keys_[id]) & mask_;
      while (slots_[i] != kNone) i = (i + 1) & mask_;
      slots_[i] = id;
    }
  }
  std::vector<std::uint32_t> slots_;
  std::vector<ChannelKey> keys_;
  std::size_t mask_ = 0;
};

double side_time(const Trace& t, Rank r, std::uint32_t record) { return t.event(r, t.ranks[r].p2p[record].event).time; }

std::string describe_side(const Trace& t, Rank r, std::uint32_t record, std::string_view what) {
  const P2P& p = t.ranks[r].p2p[record];
  const auto& comm = t.defs.comms[p.comm];
  return fmt::format("rank {} event {}: {} {} rank {} on {} tag {} ({} bytes) at {:.9f} s", r, p.event, what,
                     what == "send" ? "to" : "from", p.peer, comm.name, p.tag, p.bytes, side_time(t, r, record));
}

}  // namespace

namespace {

// Where two independent parts of a step run: on a thread of their own for a trace of a million
// events or more (a thread costs more than the step on a small one), else one after the other.
std::launch side_by_side(const Trace& trace) {
  std::size_t events = 0;
  for (const RankTrace& rt : trace.ranks) events += rt.events.size();
  return events >= 1000000 && std::thread::hardware_concurrency() > 1 ? std::launch::async : std::launch::deferred;
}

// One side of a message waiting to be paired: its rank, its p2p record and its event time.
struct Side {
  Rank rank;
  std::uint32_t record;
  double time;
};

// Sides grouped by channel, each group in posting order (a counting sort over channel ids).
struct Grouped {
  std::vector<std::uint32_t> first;  // channel c owns sides[first[c], first[c+1])
  std::vector<Side> sides;
};

Grouped group_by_channel(const Trace& trace, const std::vector<std::uint32_t>& channel_of, std::size_t channels,
                         bool sends) {
  Grouped g;
  g.first.assign(channels + 2, 0);  // the last channel id (== channels) collects "no channel"
  for (std::uint32_t c : channel_of) ++g.first[c + 1];
  for (std::size_t c = 1; c < g.first.size(); ++c) g.first[c] += g.first[c - 1];
  std::vector<std::uint32_t> fill(g.first.begin(), g.first.end() - 1);
  g.sides.resize(channel_of.size());
  std::size_t k = 0;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& rt = trace.ranks[r];
    for (std::uint32_t i = 0; i < rt.p2p.size(); ++i) {
      const P2P& p = rt.p2p[i];
      if (p.event == kNone || p.is_send() != sends) continue;
      g.sides[fill[channel_of[k++]]++] = Side{r, i, side_time(trace, r, i)};
    }
  }
  return g;
}

std::string receive_before_send(const Trace& trace, const Side& s, const Side& r) {
  const P2P& p = trace.ranks[r.rank].p2p[r.record];
  return fmt::format(
      "message rank {} -> {} tag {} ({} bytes): received at {:.9f} s, "
      "{:.3f} us before its send starts",
      s.rank, r.rank, p.tag, p.bytes, r.time, (s.time - r.time) * 1e6);
}

// Makes send side s and receive side r one message; a receive that ends before its send starts
// is an anomaly (clock skew), reported and kept.
void make_message(Trace& trace, const Side& s, const Side& r) {
  const auto id = static_cast<std::uint32_t>(trace.messages.size());
  trace.messages.push_back(Message{s.rank, r.rank, s.record, r.record});
  trace.ranks[s.rank].p2p[s.record].message = id;
  trace.ranks[r.rank].p2p[r.record].message = id;
  if (r.time < s.time)
    trace.anomalies.add(AnomalyKind::ReceiveBeforeSend, [&] { return receive_before_send(trace, s, r); });
}

void report_unmatched(Trace& trace) {
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& rt = trace.ranks[r];
    for (std::uint32_t i = 0; i < rt.p2p.size(); ++i) {
      const P2P& p = rt.p2p[i];
      if (p.event != kNone && p.message == kNone)
        trace.anomalies.add(p.is_send() ? AnomalyKind::UnmatchedSend : AnomalyKind::UnmatchedReceive,
                            [&] { return describe_side(trace, r, i, p.is_send() ? "send" : "receive"); });
    }
  }
}

}  // namespace

void match_messages(Trace& trace) {
  trace.messages.clear();
  trace.message_ids.clear();
  // Channel of every send and receive, in (rank, record) order; receives on channels nobody
  // sends on get the extra id channels.size().
  ChannelTable channels;
  std::vector<std::uint32_t> send_channel, recv_channel;
  for (Rank s = 0; s < trace.rank_count(); ++s)
    for (P2P& p : trace.ranks[s].p2p) {
      p.message = kNone;
      if (p.event != kNone && p.is_send())
        send_channel.push_back(channels.insert(ChannelKey{p.comm, s, p.peer, p.tag}));
    }
  const auto no_channel = static_cast<std::uint32_t>(channels.size());
  for (Rank r = 0; r < trace.rank_count(); ++r)
    for (const P2P& p : trace.ranks[r].p2p)
      if (p.event != kNone && !p.is_send()) {
        const std::uint32_t c = channels.find(ChannelKey{p.comm, p.peer, r, p.tag});
        recv_channel.push_back(c == kNone ? no_channel : c);
      }
  // The two groupings read the trace only: side by side on a big trace.
  std::future<Grouped> grouped_sends =
      std::async(side_by_side(trace), [&] { return group_by_channel(trace, send_channel, channels.size(), true); });
  const Grouped recvs = group_by_channel(trace, recv_channel, channels.size(), false);
  const Grouped sends = grouped_sends.get();

  // Pair the k-th send with the k-th receive of every channel.
  trace.messages.reserve(std::min(sends.sides.size(), recvs.sides.size()));
  for (std::uint32_t c = 0; c < channels.size(); ++c) {
    const std::uint32_t ns = sends.first[c + 1] - sends.first[c];
    const std::uint32_t nr = recvs.first[c + 1] - recvs.first[c];
    for (std::uint32_t k = 0; k < std::min(ns, nr); ++k) {
      make_message(trace, sends.sides[sends.first[c] + k], recvs.sides[recvs.first[c] + k]);
    }
  }
  report_unmatched(trace);
}

namespace {

// A record on a communicator of more than one rank (self communicators are matched apart).
bool on_group(const std::vector<Communicator>& comms, const CollectiveRecord& c) {
  return c.comm != kNone && c.comm < comms.size() && !comms[c.comm].self;
}

// Instances per communicator: the most records one rank has on it.
std::vector<std::uint32_t> count_instances(Trace& trace) {
  const auto& comms = trace.defs.comms;
  const Rank P = trace.rank_count();
  std::vector<std::uint32_t> per_comm_count(comms.size() * P, 0);
  std::vector<std::uint32_t> instances_of_comm(comms.size(), 0);
  for (Rank r = 0; r < P; ++r)
    for (auto& c : trace.ranks[r].collectives) {
      c.instance = kNone;
      if (!on_group(comms, c)) continue;
      const std::uint32_t n = per_comm_count[c.comm * P + r]++;
      instances_of_comm[c.comm] = std::max(instances_of_comm[c.comm], n + 1);
    }
  return instances_of_comm;
}

struct InstanceSlots {
  std::vector<std::uint32_t> first_instance;           // by comm
  std::vector<std::vector<std::uint32_t>> local_rank;  // by comm, by global rank
};

// Instance ids: comm by comm; member slots: comm size each, filled at the member's local rank.
InstanceSlots allocate_instances(Trace& trace, const std::vector<std::uint32_t>& instances_of_comm) {
  const auto& comms = trace.defs.comms;
  const Rank P = trace.rank_count();
  InstanceSlots s;
  s.first_instance.assign(comms.size(), 0);
  s.local_rank.resize(comms.size());
  for (CommId c = 0; c < comms.size(); ++c) {
    s.first_instance[c] = static_cast<std::uint32_t>(trace.collectives.size());
    if (instances_of_comm[c] == 0) continue;
    s.local_rank[c].assign(P, kNone);
    for (std::uint32_t l = 0; l < comms[c].members.size(); ++l)
      if (comms[c].members[l] < P) s.local_rank[c][comms[c].members[l]] = l;
    for (std::uint32_t n = 0; n < instances_of_comm[c]; ++n) {
      CollectiveInstance inst;
      inst.comm = c;
      inst.first = static_cast<std::uint32_t>(trace.collective_members.size());
      trace.collectives.push_back(inst);
      trace.collective_members.resize(trace.collective_members.size() + comms[c].size());
    }
  }
  return s;
}

// The n-th record of a rank on a communicator is a member of the comm's n-th instance.
void assign_members(Trace& trace, const InstanceSlots& slots) {
  const auto& comms = trace.defs.comms;
  const Rank P = trace.rank_count();
  std::vector<std::uint32_t> per_comm_count(comms.size() * P, 0);
  for (Rank r = 0; r < P; ++r) {
    auto& records = trace.ranks[r].collectives;
    for (std::uint32_t k = 0; k < records.size(); ++k) {
      auto& c = records[k];
      if (!on_group(comms, c)) continue;
      const std::uint32_t n = per_comm_count[c.comm * P + r]++;
      const std::uint32_t local = slots.local_rank[c.comm][r];
      CollectiveInstance& inst = trace.collectives[slots.first_instance[c.comm] + n];
      if (local == kNone) {
        trace.anomalies.add(AnomalyKind::MismatchedCollective, [&] {
          return fmt::format("rank {} event {}: {} on {} but the rank is not a member", r, c.end, to_string(c.op),
                             comms[c.comm].name);
        });
        continue;
      }
      c.instance = slots.first_instance[c.comm] + n;
      trace.collective_members[inst.first + local] = CollectiveMember{r, k};
      if (inst.count == 0) {
        inst.op = c.op;
        inst.root = c.root;
      } else if (inst.op != c.op) {
        trace.anomalies.add(AnomalyKind::MismatchedCollective, [&] {
          return fmt::format("{} instance {}: rank {} records {}, others {}", comms[c.comm].name, n, r, to_string(c.op),
                             to_string(inst.op));
        });
      }
      ++inst.count;
    }
  }
}

// Complete instances keep their slots; incomplete ones are compacted and reported.
void close_instances(Trace& trace, const InstanceSlots& slots) {
  const auto& comms = trace.defs.comms;
  for (std::uint32_t i = 0; i < trace.collectives.size(); ++i) {
    CollectiveInstance& inst = trace.collectives[i];
    const std::uint32_t size = comms[inst.comm].size();
    inst.complete = inst.count == size;
    if (inst.complete) continue;
    auto* m = trace.collective_members.data() + inst.first;
    std::stable_partition(m, m + size, [](const CollectiveMember& x) { return x.rank != kNone; });
    trace.anomalies.add(AnomalyKind::IncompleteCollective, [&] {
      return fmt::format("{} on {} (instance {}): {} of {} members took part", to_string(inst.op),
                         comms[inst.comm].name, i - slots.first_instance[inst.comm], inst.count, size);
    });
  }
}

// Self communicators: every record is an instance of its own.
void add_self_instances(Trace& trace) {
  const auto& comms = trace.defs.comms;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
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

}  // namespace

void match_collectives(Trace& trace) {
  trace.collectives.clear();
  trace.collective_members.clear();
  const InstanceSlots slots = allocate_instances(trace, count_instances(trace));
  assign_members(trace, slots);
  close_instances(trace, slots);
  add_self_instances(trace);
}

namespace {

void find_mpi_calls(const Definitions& defs, RankTrace& rt) {
  {
    rt.mpi_calls.clear();
    std::vector<EventIndex> open;
    for (EventIndex i = 0; i < rt.events.size(); ++i) {
      const Event& e = rt.events[i];
      if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
      if (!is_mpi(defs.region_of(e.callpath()).kind)) continue;
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
    // Growth slack back (up to half the table; one of a trace's large ones).
    if (rt.mpi_calls.capacity() > rt.mpi_calls.size() + rt.mpi_calls.size() / 10) rt.mpi_calls.shrink_to_fit();
  }
}

}  // namespace

// Per rank, independent: on a big trace the ranks in two halves side by side.
void find_mpi_calls(Trace& trace) {
  const std::size_t half = trace.ranks.size() / 2;
  std::future<void> upper = std::async(side_by_side(trace), [&] {
    for (std::size_t r = half; r < trace.ranks.size(); ++r) find_mpi_calls(trace.defs, trace.ranks[r]);
  });
  for (std::size_t r = 0; r < half; ++r) find_mpi_calls(trace.defs, trace.ranks[r]);
  upper.get();
}

namespace {

void reset_derived_anomalies(Trace& trace) {
  for (auto kind : {AnomalyKind::UnmatchedSend, AnomalyKind::UnmatchedReceive, AnomalyKind::ReceiveBeforeSend,
                    AnomalyKind::MismatchedCollective})
    trace.anomalies.reset(kind);
}

// Spread over processes, the matching crosses only what it needs: every sender's channels (in the
// order of their first send, numbered after the lower ranks' as match_messages numbers them) go
// with their sends to the process of their receiver, which pairs them with its receives in
// posting order; the pairs of every channel number the messages (channel by channel, as one
// process would), the message tables of all processes join on every one, and the anomalies merge
// in the order one process would find them.
struct ChannelSends {
  std::uint32_t id = 0;  // the channel's number
  ChannelKey key{};
  std::vector<std::uint32_t> records;  // the sender's p2p records, in posting order
  std::vector<double> times;
};

struct SentChannels {
  std::vector<std::vector<ChannelSends>> by_owner;  // the channels of this process's senders, by receiver's process
};

SentChannels channels_of_senders(const Trace& trace, const std::vector<RankShare>& shares, ProcessGroup& group) {
  const RankShare mine = *trace.share;
  std::vector<std::vector<ChannelSends>> per_rank(mine.size());
  Packer counts;
  for (Rank s = mine.first; s < mine.last; ++s) {
    ChannelTable table;
    auto& channels = per_rank[s - mine.first];
    const RankTrace& rt = trace.ranks[s];
    for (std::uint32_t i = 0; i < rt.p2p.size(); ++i) {
      const P2P& p = rt.p2p[i];
      if (p.event == kNone || !p.is_send()) continue;
      const std::uint32_t c = table.insert(ChannelKey{p.comm, s, p.peer, p.tag});
      if (c == channels.size()) channels.push_back(ChannelSends{0, ChannelKey{p.comm, s, p.peer, p.tag}, {}, {}});
      channels[c].records.push_back(i);
      channels[c].times.push_back(rt.events[p.event].time);
    }
    counts.put(static_cast<std::uint32_t>(channels.size()));
  }
  // Channel numbers: after every lower rank's.
  std::uint32_t next = 0;
  const std::vector<std::string> all = all_gather(group, counts.take());
  for (std::size_t p = 0; p < all.size(); ++p) {
    Unpacker in(all[p]);
    for (Rank s = shares[p].first; s < shares[p].last; ++s) {
      const auto n = in.get<std::uint32_t>();
      if (static_cast<int>(p) == group.process())
        for (std::uint32_t k = 0; k < n; ++k) per_rank[s - mine.first][k].id = next + k;
      next += n;
    }
  }
  SentChannels out;
  out.by_owner.resize(shares.size());
  for (auto& channels : per_rank)
    for (ChannelSends& c : channels) {
      const int owner = c.key.dest < trace.rank_count() ? owner_of(shares, c.key.dest) : -1;
      if (owner >= 0) out.by_owner[static_cast<std::size_t>(owner)].push_back(std::move(c));
    }
  return out;
}

std::vector<ChannelSends> route_channels(SentChannels sent, ProcessGroup& group) {
  std::vector<std::string> packets(sent.by_owner.size());
  for (std::size_t p = 0; p < packets.size(); ++p) {
    Packer out;
    for (const ChannelSends& c : sent.by_owner[p]) out.put(c.id).put(c.key).put_vector(c.records).put_vector(c.times);
    packets[p] = out.take();
    sent.by_owner[p] = {};
  }
  std::vector<ChannelSends> in;
  for (const std::string& packet : group.exchange(std::move(packets))) {
    Unpacker u(packet);
    while (!u.done()) {
      ChannelSends c;
      c.id = u.get<std::uint32_t>();
      c.key = u.get<ChannelKey>();
      c.records = u.get_vector<std::uint32_t>();
      c.times = u.get_vector<double>();
      in.push_back(std::move(c));
    }
  }
  std::sort(in.begin(), in.end(), [](const ChannelSends& a, const ChannelSends& b) { return a.id < b.id; });
  return in;
}

// Anomalies found here of kinds that the processes' parts merge in a fixed order.
void merge_in_order(Trace& trace, ProcessGroup& group, const Anomalies& found) {
  Packer out;
  pack_anomalies(out, found);
  for (const std::string& packet : all_gather(group, out.take())) {
    Unpacker in(packet);
    trace.anomalies.merge(unpack_anomalies(in));
  }
}

void match_messages_spread(Trace& trace, ProcessGroup& group, const std::vector<RankShare>& shares) {
  trace.messages.clear();
  for (RankTrace& rt : trace.ranks)
    for (P2P& p : rt.p2p) p.message = kNone;
  const std::vector<ChannelSends> channels = route_channels(channels_of_senders(trace, shares, group), group);
  // This process's receives by channel, in posting order.
  ChannelTable index;
  for (const ChannelSends& c : channels) index.insert(c.key);
  std::vector<std::vector<std::pair<Rank, std::uint32_t>>> recvs(channels.size());
  for (Rank r = trace.share->first; r < trace.share->last; ++r) {
    const RankTrace& rt = trace.ranks[r];
    for (std::uint32_t i = 0; i < rt.p2p.size(); ++i) {
      const P2P& p = rt.p2p[i];
      if (p.event == kNone || p.is_send()) continue;
      const std::uint32_t c = index.find(ChannelKey{p.comm, p.peer, r, p.tag});
      if (c != kNone) recvs[c].emplace_back(r, i);
    }
  }
  // Message numbers: channel by channel over every process's channels.
  Packer pairs;
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const auto n = static_cast<std::uint32_t>(std::min(channels[c].records.size(), recvs[c].size()));
    if (n > 0) pairs.put(channels[c].id).put(n);
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all_pairs;
  for (const std::string& packet : all_gather(group, pairs.take())) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto id = in.get<std::uint32_t>();
      all_pairs.emplace_back(id, in.get<std::uint32_t>());
    }
  }
  std::sort(all_pairs.begin(), all_pairs.end());
  std::vector<std::pair<std::uint32_t, std::uint64_t>> first_message;  // (channel, its first message)
  std::uint64_t next = 0;
  for (const auto& [id, n] : all_pairs) first_message.emplace_back(id, next), next += n;
  // This process's messages; the ids of the sends go back to their processes.
  std::vector<Message> mine;
  std::vector<std::uint64_t> ids;
  struct Early {
    std::uint64_t count = 0;
    std::vector<std::pair<std::uint32_t, std::string>> examples;  // (message, text)
  } early;
  std::vector<Packer> back(shares.size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const auto n = std::min(channels[c].records.size(), recvs[c].size());
    if (n == 0) continue;
    const auto it =
        std::lower_bound(first_message.begin(), first_message.end(), std::make_pair(channels[c].id, std::uint64_t(0)));
    for (std::size_t k = 0; k < n; ++k) {
      const auto id = static_cast<std::uint32_t>(it->second + k);
      const Side s{channels[c].key.source, channels[c].records[k], channels[c].times[k]};
      const auto [rank, record] = recvs[c][k];
      const Side r{rank, record, side_time(trace, rank, record)};
      mine.push_back(Message{s.rank, r.rank, s.record, r.record});
      ids.push_back(id);
      trace.ranks[r.rank].p2p[r.record].message = id;
      if (!trace.holds(s.rank)) back[static_cast<std::size_t>(owner_of(shares, s.rank))].put(id).put(mine.back());
      if (r.time < s.time) {
        ++early.count;
        if (early.examples.size() < Anomalies::kMaxExamples)
          early.examples.emplace_back(id, receive_before_send(trace, s, r));
      }
    }
  }
  // Receives before their sends, as one process finds them: in message order.
  {
    Packer out;
    out.put(early.count).put<std::uint64_t>(early.examples.size());
    for (const auto& [id, text] : early.examples) out.put(id).put_string(text);
    Anomaly merged;
    std::vector<std::pair<std::uint32_t, std::string>> examples;
    for (const std::string& packet : all_gather(group, out.take())) {
      Unpacker in(packet);
      merged.count += in.get<std::uint64_t>();
      for (auto n = in.get<std::uint64_t>(); n > 0; --n) {
        const auto id = in.get<std::uint32_t>();
        examples.emplace_back(id, in.get_string());
      }
    }
    std::sort(examples.begin(), examples.end());
    for (std::size_t k = 0; k < examples.size() && k < Anomalies::kMaxExamples; ++k)
      merged.examples.push_back(examples[k].second);
    trace.anomalies.set(AnomalyKind::ReceiveBeforeSend, std::move(merged));
  }
  std::vector<std::string> packets(shares.size());
  for (std::size_t p = 0; p < packets.size(); ++p) packets[p] = back[p].take();
  // The messages this process's ranks sent to others' come back numbered: this process's table is
  // the messages with a side here, in message order.
  std::vector<std::pair<std::uint32_t, Message>> table;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    table.emplace_back(static_cast<std::uint32_t>(ids[k]), mine[k]);
    if (trace.holds(mine[k].sender)) trace.ranks[mine[k].sender].p2p[mine[k].send].message = table.back().first;
  }
  for (const std::string& packet : group.exchange(std::move(packets))) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto id = in.get<std::uint32_t>();
      const auto m = in.get<Message>();
      trace.ranks[m.sender].p2p[m.send].message = id;
      table.emplace_back(id, m);
    }
  }
  std::sort(table.begin(), table.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  trace.messages.clear();
  trace.message_ids.clear();
  for (const auto& [id, m] : table) {
    trace.message_ids.push_back(id);
    trace.messages.push_back(m);
  }
  trace.messages.shrink_to_fit();
  trace.message_ids.shrink_to_fit();
  Anomalies unmatched;
  std::swap(unmatched, trace.anomalies);
  report_unmatched(trace);  // this process's ranks only: the others' tables are empty
  std::swap(unmatched, trace.anomalies);
  merge_in_order(trace, group, unmatched);
}

// This process's ranks' collective records, rank by rank, for the instances' matching.
std::string pack_collectives(const Trace& trace, RankShare share) {
  Packer out;
  out.put(share.first).put(share.last);
  for (Rank r = share.first; r < share.last; ++r) out.put_vector(trace.ranks[r].collectives);
  return out.take();
}

void unpack_collectives(Trace& trace, const std::vector<std::string>& packets) {
  for (const std::string& packet : packets) {
    Unpacker in(packet);
    const auto first = in.get<Rank>();
    const auto last = in.get<Rank>();
    for (Rank r = first; r < last && r < trace.rank_count(); ++r) {
      std::vector<CollectiveRecord> collectives = in.get_vector<CollectiveRecord>();
      if (!trace.holds(r)) trace.ranks[r].collectives = std::move(collectives);
    }
  }
}

}  // namespace

void derive(Trace& trace) {
  reset_derived_anomalies(trace);
  match_messages(trace);
  match_collectives(trace);
  find_mpi_calls(trace);
}

void derive(Trace& trace, ProcessGroup& group) {
  if (!trace.share) throw Error("derive: the trace is not spread over processes (no share)");
  reset_derived_anomalies(trace);
  match_messages_spread(trace, group, gather_shares(group, *trace.share));
  unpack_collectives(trace, all_gather(group, pack_collectives(trace, *trace.share)));
  match_collectives(trace);
  for (Rank r = 0; r < trace.rank_count(); ++r)
    if (!trace.holds(r)) trace.ranks[r].collectives = {};
  find_mpi_calls(trace);
}

}  // namespace wisp
