// chain_sweep() (chain_sweep.hpp) over a program activity graph spread over processes (pag.hpp:
// each process holds its ranks' part, glued to the others' at ghost vertices): the same relax and
// visit calls, each rank's vertices in their order, a vertex once every activity into it has been
// relaxed; the value reaching an export ghost goes to the process of its import ghost and leaves
// that one. Internal to the analysis layer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/group/pack.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp {

template <typename Value>
class GhostSweep {
 public:
  // Collective (Automatic: decides on every process's Pag::tight).
  GhostSweep(const Pag& pag, Variant variant, ProcessGroup& group, GhostTransport transport = GhostTransport::Automatic,
             std::size_t round_bytes = kGhostRoundBytes)
      : pag_(pag), g_(pag.graph), variant_(variant), group_(group), transport_(transport), round_bytes_(round_bytes) {
    if (transport_ != GhostTransport::Automatic) return;
    std::uint64_t tight = 0;
    for (const std::string& part : all_gather(group, packed(pag.tight))) tight += Unpacker(part).get<std::uint64_t>();
    transport_ = tight == 0 ? GhostTransport::PointToPoint : GhostTransport::Rounds;
  }

  // false (on every process) if the dependencies form a cycle (rounds only; point to point hangs).
  template <typename Relax, typename Visit>
  bool run(Relax&& relax, Visit&& visit) {
    prepare();
    const auto process = [&](std::uint32_t v, const Value& value) {
      --left_;
      visit(v, value);
      g_.for_each_outgoing(
          v,
          [&](std::uint32_t id, const Activity& a) {
            if (a.to == v + 1 && !g_.in_rows.has_items(a.to)) {  // a chain inside the lane being advanced
              Value& c = carried_[current_lane_];
              c = Value{};
              relax(c, value, a);
              return;
            }
            const std::uint32_t slot = g_.in_rows.index(a.to);
            relax(stored_[slot], value, a);
            if (id < g_.explicit_count() && --pending_[slot] == 0) ready(a.to);
          },
          variant_);
    };
    while (true) {
      while (!ready_vertices_.empty() || !ready_lanes_.empty() || !arrived_.empty()) {
        if (!arrived_.empty()) {
          const auto [v, value] = arrived_.back();
          arrived_.pop_back();
          process(v, value);
        } else if (!ready_vertices_.empty()) {
          const std::uint32_t v = ready_vertices_.back();
          ready_vertices_.pop_back();
          process(v, stored_[g_.in_rows.index(v)]);
        } else {
          const std::uint32_t lane = ready_lanes_.back();
          ready_lanes_.pop_back();
          advance(lane, process);
        }
        if (transport_ == GhostTransport::PointToPoint && bytes_ >= round_bytes_) flush();
      }
      if (transport_ == GhostTransport::PointToPoint) {
        flush();
        if (left_ == 0) return true;
        receive(group_.receive());
        continue;
      }
      const Round all = exchange();
      if (all.unfinished == 0) return true;
      if (all.sent == 0) return false;
    }
  }

 private:
  static constexpr std::uint32_t kBlocked = 0xffffffff;

  // The lane holding vertex v (kNone: the start, a hub or a ghost).
  std::uint32_t lane_of_vertex(std::uint32_t v) const {
    if (lanes_.empty() || v < lanes_.front().first || v >= lanes_.back().second) return kNone;
    const auto after = std::upper_bound(lanes_.begin(), lanes_.end(), v,
                                        [](std::uint32_t x, const auto& lane) { return x < lane.first; });
    return static_cast<std::uint32_t>(after - lanes_.begin() - 1);
  }

  // Counts every vertex's activities in, and readies those with none (the start).
  void prepare() {
    stored_.assign(g_.in_rows.nonempty_count(), Value{});
    pending_.assign(g_.in_rows.nonempty_count(), 0);
    std::vector<std::uint8_t> member(g_.vertex_count, 0);  // in the variant
    for (std::uint32_t v = 0; v < g_.vertex_count; ++v) {
      if (g_.has_chain(v)) member[v] = member[v + 1] = 1;
      const auto [first, end] = g_.out_rows.range(v);
      for (std::uint32_t k = first; k < end; ++k) {
        const Activity& a = g_.activities[g_.out[k]];
        if (!(a.variants & variant_)) continue;
        member[v] = member[a.to] = 1;
        ++pending_[g_.in_rows.index(a.to)];
      }
    }
    for (std::size_t k = 0; k < g_.lanes.size(); ++k) {  // a rank's vertices are one run
      if (g_.lanes[k].lane == kNone) continue;
      lanes_.push_back({g_.lanes[k].first, k + 1 < g_.lanes.size() ? g_.lanes[k + 1].first : g_.vertex_count});
    }
    carried_.assign(lanes_.size(), Value{});
    cursor_.resize(lanes_.size());
    for (std::size_t l = 0; l < lanes_.size(); ++l) cursor_[l] = lanes_[l].first;
    left_ = 0;
    for (std::uint32_t v = 0; v < g_.vertex_count; ++v) left_ += member[v];
    for (const PagGhost& gh : pag_.ghosts)
      if (gh.import && member[gh.vertex]) imports_.emplace(gh.key, gh.vertex);
    for (std::size_t k = 0; k < pag_.ghosts.size(); ++k) ghost_of_.emplace(pag_.ghosts[k].vertex, k);
    outbox_.resize(static_cast<std::size_t>(group_.processes()));
    for (std::size_t l = lanes_.size(); l-- > 0;) ready_lanes_.push_back(static_cast<std::uint32_t>(l));
    start_pending_ = member[Pag::kStart] != 0;
  }

  void ready(std::uint32_t v) {
    const std::uint32_t lane = lane_of_vertex(v);
    if (lane != kNone) {
      if (cursor_[lane] == v) ready_lanes_.push_back(lane);
      return;
    }
    const auto ghost = ghost_of_.find(v);
    if (ghost == ghost_of_.end() || pag_.ghosts[ghost->second].import) return ready_vertices_.push_back(v);
    const PagGhost& gh = pag_.ghosts[ghost->second];  // an export: its value goes to the other process
    outbox_[static_cast<std::size_t>(gh.process)].put(gh.key).put(stored_[g_.in_rows.index(v)]);
    bytes_ += sizeof(gh.key) + sizeof(Value);
    ++sent_;
    --left_;
  }

  // The lane as far as it goes.
  template <typename Process>
  void advance(std::uint32_t lane, Process& process) {
    if (start_pending_) {  // the start first: its launches reach every lane's first vertex
      start_pending_ = false;
      process(Pag::kStart, Value{});
    }
    current_lane_ = lane;
    std::uint32_t& v = cursor_[lane];
    const std::uint32_t end = lanes_[lane].second;
    while (v < end) {
      Value value{};
      if (g_.in_rows.has_items(v)) {
        if (pending_[g_.in_rows.index(v)] > 0) return;  // ready() brings it back
        value = stored_[g_.in_rows.index(v)];
      } else if (v > lanes_[lane].first) {
        value = carried_[lane];
      }
      const std::uint32_t here = v++;
      process(here, value);
    }
  }

  void deliver(std::uint64_t key, const Value& value) {
    const auto it = imports_.find(key);
    if (it == imports_.end()) throw Error("activity graph over processes: a value arrived for no ghost here");
    arrived_.emplace_back(it->second, value);
  }
  void receive(const std::string& message) {
    Unpacker in(message);
    while (!in.done()) {
      const auto key = in.get<std::uint64_t>();
      deliver(key, in.get<Value>());
    }
  }
  void flush() {
    for (std::size_t p = 0; p < outbox_.size(); ++p)
      if (outbox_[p].size() > 0) group_.send(static_cast<int>(p), outbox_[p].take());
    outbox_.assign(outbox_.size(), Packer());
    bytes_ = 0;
  }
  struct Round {
    std::uint64_t sent = 0, unfinished = 0;
  };
  Round exchange() {
    const Round mine{sent_, left_};
    std::vector<std::string> packets(outbox_.size());
    for (std::size_t p = 0; p < outbox_.size(); ++p) packets[p] = packed(mine) + outbox_[p].take();
    outbox_.assign(outbox_.size(), Packer());
    bytes_ = 0;
    sent_ = 0;
    Round all;
    for (const std::string& packet : group_.exchange(std::move(packets))) {
      Unpacker in(packet);
      const auto s = in.get<Round>();
      all.sent += s.sent;
      all.unfinished += s.unfinished;
      receive(packet.substr(sizeof(Round)));
    }
    return all;
  }

  const Pag& pag_;
  const ActivityGraph& g_;
  Variant variant_;
  ProcessGroup& group_;
  GhostTransport transport_;
  std::size_t round_bytes_;
  std::vector<Value> stored_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> lanes_;  // local ranks' vertices [first, end)
  std::vector<Value> carried_;                                  // per lane
  std::vector<std::uint32_t> cursor_;                           // per lane: the next vertex
  std::unordered_map<std::uint64_t, std::uint32_t> imports_;    // key -> import ghost (in the variant)
  std::unordered_map<std::uint32_t, std::size_t> ghost_of_;     // vertex -> its index in pag_.ghosts
  std::vector<std::uint32_t> ready_vertices_, ready_lanes_;
  std::vector<std::pair<std::uint32_t, Value>> arrived_;
  std::vector<Packer> outbox_;
  std::size_t bytes_ = 0, left_ = 0;  // left_: vertices of the variant not processed yet
  std::uint64_t sent_ = 0;
  bool start_pending_ = false;
  std::uint32_t current_lane_ = 0;
};

}  // namespace wisp
