// chain_sweep() (chain_sweep.hpp) over a program activity graph spread over processes (pag.hpp:
// each process holds its ranks' part, glued to the others' at ghost vertices), forward (longest
// paths from the start: relax into an activity's target) or backward (longest paths to the end:
// relax into its source). Each rank's vertices are met in their order (backward: from the last), a
// vertex once every activity into it (backward: out of it) has been relaxed; the value reaching a
// ghost that stands for a vertex of another process goes there, to the other end of its crossing
// (PagGhost::peer), and is relaxed on from it. Internal to the analysis layer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/analysis/cpm.hpp"  // ChainTails
#include "wisp/analysis/pag.hpp"
#include "wisp/error.hpp"
#include "wisp/group/pack.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp {

enum class Sweep : std::uint8_t { Forward, Backward };

template <typename Value, Sweep kDirection = Sweep::Forward>
class GhostSweep {
  static constexpr bool kForward = kDirection == Sweep::Forward;

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

  // relax(Value& into, const Value& from, const Activity& a), visit(v, const Value& value) as in
  // chain_sweep(); backward, `into` is the value of a's source and `from` its target's.
  // false (on every process) if the dependencies form a cycle (rounds only; point to point hangs).
  // Each run is a sweep of its own (the MBM's passes); what does not change between them is kept.
  template <typename Relax, typename Visit>
  bool run(Relax&& relax, Visit&& visit) {
    return run(relax, visit, nullptr, [](Value&, std::uint32_t, std::uint32_t) {});
  }
  // The same, crossing a chain's inside at once: of the vertices `kept` does not keep (one chain in,
  // one out, nothing explicit: kept_vertices()), all but the one next to the kept vertex the sweep
  // meets after them are not visited; cross(Value& carried, lo, hi) applies the chains x -> x + 1,
  // lo <= x < hi, to the value carried along them (forward, vertices lo..hi-1 are skipped; backward
  // lo+1..hi). For passes that keep values at kept vertices only (the CPM's tails, the MBM's lanes).
  template <typename Relax, typename Visit, typename Cross>
  bool run(Relax&& relax, Visit&& visit, const ChainTails* kept, Cross&& cross) {
    kept_ = kept;
    prepare();
    const auto process = [&](std::uint32_t v, const Value& value) {
      --left_;
      visit(v, value);
      if (send(v, value)) return;
      const auto step = [&](std::uint32_t id, const Activity& a) {
        const std::uint32_t w = kForward ? a.to : a.from;
        if (w == next_in_lane(v) && !rows().has_items(w)) {  // a chain inside the lane being advanced
          Value& c = carried_[current_lane_];
          c = Value{};
          relax(c, value, a);
          return;
        }
        const std::uint32_t slot = rows().index(w);
        relax(stored_[slot], value, a);
        if (id < g_.explicit_count() && --pending_[slot] == 0) ready(w);
      };
      if constexpr (kForward)
        g_.for_each_outgoing(v, step, variant_);
      else
        g_.for_each_incoming(v, step, variant_);
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
          hub_met_ = hub_met_ || (v != 0 && ghost_of_[outside_slot(v)] == kNone);
          process(v, rows().has_items(v) ? stored_[rows().index(v)] : Value{});
        } else {
          // Point to point, a hub's values (other processes wait for them to go on) go before this
          // process's lanes go on; the lanes' own wait until it can go no further.
          if (transport_ == GhostTransport::PointToPoint && hub_met_ && bytes_ > 0) flush();
          const std::uint32_t lane = ready_lanes_.back();
          ready_lanes_.pop_back();
          advance(lane, process, cross);
        }
        if (transport_ == GhostTransport::PointToPoint && bytes_ >= round_bytes_) flush();
      }
      if (transport_ == GhostTransport::PointToPoint) {
        flush();
        if (left_ == 0) {
          all_gather(group_, std::string());  // no process starts its next sweep while others receive this one's
          return true;
        }
        receive(group_.receive());
        continue;
      }
      const Round all = exchange();
      if (all.unfinished == 0) return true;
      if (all.sent == 0) return false;
    }
  }

 private:
  // Where values are kept and counted: at the vertices with explicit activities in (backward: out).
  const SparseRows& rows() const { return kForward ? g_.in_rows : g_.out_rows; }
  // The lane's next vertex after v in the sweep's order.
  static std::uint32_t next_in_lane(std::uint32_t v) { return kForward ? v + 1 : v - 1; }

  // The lane holding vertex v (kNone: the start, a hub or a ghost).
  std::uint32_t lane_of_vertex(std::uint32_t v) const {
    if (!in_lanes(v)) return kNone;
    const auto after = std::upper_bound(lanes_.begin(), lanes_.end(), v,
                                        [](std::uint32_t x, const auto& lane) { return x < lane.first; });
    return static_cast<std::uint32_t>(after - lanes_.begin() - 1);
  }

  bool in_lanes(std::uint32_t v) const { return !lanes_.empty() && v >= lanes_.front().first && v < lanes_end_; }
  // A vertex outside lanes (the start, a hub, a ghost) as an index of ghost_of_, and back.
  std::uint32_t outside_slot(std::uint32_t v) const { return v == 0 ? 0 : v - lanes_end_ + 1; }
  std::uint32_t outside_vertex(std::size_t slot) const {
    return slot == 0 ? 0 : static_cast<std::uint32_t>(slot + lanes_end_ - 1);
  }

  // Once per sweep object: the lanes, the ghosts by vertex, the vertices outside lanes (the start,
  // hubs, ghosts) that the variant's activities join.
  void lay_out() {
    if (laid_out_) return;
    laid_out_ = true;
    for (std::size_t k = 0; k < g_.lanes.size(); ++k) {  // a rank's vertices are one run
      if (g_.lanes[k].lane == kNone) continue;
      lanes_.push_back({g_.lanes[k].first, k + 1 < g_.lanes.size() ? g_.lanes[k + 1].first : g_.vertex_count});
    }
    lanes_end_ = lanes_.empty() ? 1 : lanes_.back().second;
    std::vector<std::uint8_t> member(g_.vertex_count - lanes_end_ + 1, 0);
    for (const Activity& a : g_.activities) {
      if (!(a.variants & variant_)) continue;
      if (!in_lanes(a.from)) member[outside_slot(a.from)] = 1;
      if (!in_lanes(a.to)) member[outside_slot(a.to)] = 1;
    }
    ghost_of_.assign(member.size(), kNone);
    for (std::size_t k = 0; k < pag_.ghosts.size(); ++k)
      ghost_of_[outside_slot(pag_.ghosts[k].vertex)] = static_cast<std::uint32_t>(k);
    for (std::size_t i = 0; i < member.size(); ++i)
      if (member[i]) outside_.push_back(outside_vertex(i));
  }

  // Per run: counts every vertex's explicit activities in (backward: out); readies the vertices
  // outside lanes that wait for none, except the ghosts whose value comes from another process.
  void prepare() {
    lay_out();
    stored_.assign(rows().nonempty_count(), Value{});
    pending_.assign(rows().nonempty_count(), 0);
    for (const Activity& a : g_.activities)
      if (a.variants & variant_) ++pending_[rows().index(kForward ? a.to : a.from)];
    cursor_.resize(lanes_.size());
    for (std::size_t l = 0; l < lanes_.size(); ++l) cursor_[l] = kForward ? lanes_[l].first : lanes_[l].second - 1;
    left_ = outside_.size();
    for (const auto& lane : lanes_) left_ += lane.second - lane.first;
    ready_vertices_.clear();
    ready_lanes_.clear();
    arrived_.clear();
    for (const std::uint32_t v : outside_) {
      const std::uint32_t k = ghost_of_[outside_slot(v)];
      const bool receives = k != kNone && pag_.ghosts[k].import == kForward;
      if (!receives && !(rows().has_items(v) && pending_[rows().index(v)] > 0)) ready(v);
    }
    carried_.assign(lanes_.size(), Value{});
    outbox_.assign(static_cast<std::size_t>(group_.processes()), Packer());
    bytes_ = 0;
    sent_ = 0;
    hub_met_ = false;
    for (std::size_t l = lanes_.size(); l-- > 0;) ready_lanes_.push_back(static_cast<std::uint32_t>(l));
  }

  void ready(std::uint32_t v) {
    const std::uint32_t lane = lane_of_vertex(v);
    if (lane != kNone) {
      if (cursor_[lane] == v) ready_lanes_.push_back(lane);
      return;
    }
    ready_vertices_.push_back(v);
  }

  // A ghost whose value goes to the other end of its crossing, on another process: sends it (true).
  bool send(std::uint32_t v, const Value& value) {
    if (v < lanes_end_) return false;
    const std::uint32_t k = ghost_of_[outside_slot(v)];
    if (k == kNone || pag_.ghosts[k].import == kForward) return false;
    const PagGhost& gh = pag_.ghosts[k];
    outbox_[static_cast<std::size_t>(gh.process)].put(gh.peer).put(value);
    bytes_ += sizeof(gh.peer) + sizeof(Value);
    ++sent_;
    return true;
  }

  // The lane as far as it goes.
  template <typename Process, typename Cross>
  void advance(std::uint32_t lane, Process& process, Cross& cross) {
    current_lane_ = lane;
    std::uint32_t& v = cursor_[lane];
    const auto [first, end] = lanes_[lane];
    while (kForward ? v < end : v != first - 1) {
      if (kept_ != nullptr && !kept_->kept(v)) {  // inside a chain: v - 1 and v + 1 are in the lane
        if constexpr (kForward) {
          const std::uint32_t last = kept_->first_kept(v, end) - 1;  // visited: its chain may lead to stored
          cross(carried_[lane], v, last);
          left_ -= last - v;
          v = last;
        } else {
          const std::uint32_t below = kept_->last_kept(first, v);
          const std::uint32_t last = below == kNone ? first : below + 1;
          cross(carried_[lane], last, v);
          left_ -= v - last;
          v = last;
        }
      }
      Value value{};
      if (rows().has_items(v)) {
        if (pending_[rows().index(v)] > 0) return;  // ready() brings it back
        value = stored_[rows().index(v)];
      } else if (kForward ? v > first && g_.has_chain(v - 1) : v + 1 < end && g_.has_chain(v)) {
        value = carried_[lane];
      }
      const std::uint32_t here = v;
      v = next_in_lane(v);
      process(here, value);
    }
  }

  void receive(const std::string& message) {
    Unpacker in(message);
    while (!in.done()) {
      const auto ghost = in.get<std::uint32_t>();
      const Value value = in.get<Value>();
      arrived_.emplace_back(pag_.arrival(ghost, kForward), value);
    }
  }
  void flush() {
    for (std::size_t p = 0; p < outbox_.size(); ++p)
      if (outbox_[p].size() > 0) group_.send(static_cast<int>(p), outbox_[p].take());
    outbox_.assign(outbox_.size(), Packer());
    bytes_ = 0;
    hub_met_ = false;
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
  const ChainTails* kept_ = nullptr;  // run(): the vertices visited, the others crossed at once
  Variant variant_;
  ProcessGroup& group_;
  GhostTransport transport_;
  std::size_t round_bytes_;
  std::vector<Value> stored_;                                   // per vertex with explicit activities in (out)
  std::vector<std::uint32_t> pending_;                          // the same: those not relaxed yet
  std::vector<std::pair<std::uint32_t, std::uint32_t>> lanes_;  // local ranks' vertices [first, end)
  std::uint32_t lanes_end_ = 1;                                 // the start, hubs and ghosts: 0 and from here on
  bool laid_out_ = false;
  std::vector<std::uint32_t> ghost_of_;  // per vertex outside lanes: its ghost (kNone)
  std::vector<std::uint32_t> outside_;   // the vertices outside lanes of the variant
  std::vector<Value> carried_;           // per lane
  std::vector<std::uint32_t> cursor_;    // per lane: the next vertex
  std::vector<std::uint32_t> ready_vertices_, ready_lanes_;
  std::vector<std::pair<std::uint32_t, Value>> arrived_;
  std::vector<Packer> outbox_;
  std::size_t bytes_ = 0, left_ = 0;  // left_: vertices of the variant not processed yet
  std::uint64_t sent_ = 0;
  std::uint32_t current_lane_ = 0;
  bool hub_met_ = false;  // a synchronisation vertex was met since the last flush
};

// The walks over the parts (the critical path: cpm.cpp; the near-critical paths: near_critical.cpp)
// go on in the part that holds the next vertex: their token (a trivially copyable Token with a
// `ghost`, the other end's PagGhost::peer of the ghost it crossed, and a `done` flag) goes to that
// process, and the process that ends the walk tells every other.
// Waits for the walk; returns its token and the vertex of the ghost here it arrives at (an import
// ghost if `import`, else an export one), or nullopt when the walk is over.
template <typename Token>
std::optional<std::pair<Token, std::uint32_t>> await_walk(ProcessGroup& group, const Pag& pag, bool import) {
  const auto token = Unpacker(group.receive()).template get<Token>();
  if (token.done) return std::nullopt;
  return std::pair{token, pag.arrival(token.ghost, import)};
}
template <typename Token>
void end_walk(ProcessGroup& group) {
  Token done{};
  done.done = 1;
  for (int p = 0; p < group.processes(); ++p)
    if (p != group.process()) group.send(p, packed(done));
}

}  // namespace wisp
