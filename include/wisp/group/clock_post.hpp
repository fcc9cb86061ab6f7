// The post of a replay spread over processes (the PAG's passes): values by key that a rank of
// one process sends to a rank of another, the ranks that wait for one, and the loop that runs
// every rank of this process as far as it goes until all are done — the values crossing point to
// point (ProcessGroup::send/receive) or in rounds of exchange(), where a round in which nothing
// is sent while ranks wait is a cycle. Ranks are numbered as the trace numbers them (wisp::Rank).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "wisp/group/pack.hpp"
#include "wisp/group/process_group.hpp"

namespace wisp::clock {

template <typename Value>
class Post {
 public:
  Post(ProcessGroup& group, bool point_to_point, std::size_t round_bytes)
      : group_(group), p2p_(point_to_point), round_bytes_(round_bytes), me_(group.process()) {
    outbox_.resize(static_cast<std::size_t>(group.processes()));
  }

  void send(int to, std::uint64_t key, const Value& value) {
    if (to == me_) return deliver(key, value);
    outbox_[static_cast<std::size_t>(to)].put(key).put(value);
    bytes_ += sizeof(key) + sizeof(value);
    ++sent_;
  }
  // The value of `key` if it arrived (else nullptr: the caller waits for it and returns).
  const Value* find(std::uint64_t key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }
  void wait(std::uint64_t key, std::uint32_t r) { waiters_.emplace(key, r); }
  void erase(std::uint64_t key) { values_.erase(key); }
  // Called by a rank before each step: true if it must stop for this round (its outbox is full).
  bool pause(std::uint32_t r) {
    if (bytes_ < round_bytes_) return false;
    if (p2p_) {
      flush();
      return false;
    }
    deferred_.push_back(r);
    return true;
  }

  // advance(r): rank r as far as it goes; true when it is done, false when it waits (after
  // wait()) or paused. Runs every rank of [first, last); false on a cycle (rounds only).
  template <typename Advance>
  bool run(std::uint32_t first, std::uint32_t last, Advance&& advance) {
    std::uint64_t unfinished = last - first;
    for (std::uint32_t r = last; r-- > first;) ready_.push_back(r);
    while (true) {
      while (!ready_.empty()) {
        const std::uint32_t r = ready_.back();
        ready_.pop_back();
        if (advance(r)) --unfinished;
      }
      if (p2p_) {
        flush();
        if (unfinished == 0) return true;
        receive(group_.receive());
        continue;
      }
      const Round all = exchange(unfinished);
      if (all.unfinished == 0) return true;
      if (all.sent == 0 && all.deferred == 0) return false;
      ready_.insert(ready_.end(), deferred_.rbegin(), deferred_.rend());
      deferred_.clear();
    }
  }

 private:
  struct Round {
    std::uint64_t sent = 0, deferred = 0, unfinished = 0;
  };

  void deliver(std::uint64_t key, const Value& value) {
    values_.emplace(key, value);
    const auto [first, last] = waiters_.equal_range(key);
    for (auto it = first; it != last; ++it) ready_.push_back(it->second);
    waiters_.erase(first, last);
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
  Round exchange(std::uint64_t unfinished) {
    const Round mine{sent_, deferred_.size(), unfinished};
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
      all.deferred += s.deferred;
      all.unfinished += s.unfinished;
      receive(packet.substr(sizeof(Round)));
    }
    return all;
  }

  ProcessGroup& group_;
  bool p2p_;
  std::size_t round_bytes_;
  int me_;
  std::unordered_map<std::uint64_t, Value> values_;  // arrived and not taken yet
  std::unordered_multimap<std::uint64_t, std::uint32_t> waiters_;
  std::vector<std::uint32_t> ready_, deferred_;
  std::vector<Packer> outbox_;
  std::size_t bytes_ = 0;
  std::uint64_t sent_ = 0;
};

}  // namespace wisp::clock
