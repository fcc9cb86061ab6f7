// The processes one analysis is spread over (the ranks of an MPI job, or threads in a test), as in
// Scalasca's parallel replay: each process holds a share of the trace's ranks (RankShare) and what
// crosses shares moves by collective exchanges of byte buffers, so that no layer below the driver
// sees MPI (driver/mpi_pool.hpp makes the MPI group; SoloProcess is the group of one).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "wisp/error.hpp"
#include "wisp/trace/ids.hpp"

namespace wisp {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int process() const = 0;    // this process, 0 .. processes() - 1
  virtual int processes() const = 0;  // how many take part
  // Collective (every process calls it, in the same order): `outgoing[p]` goes to process p;
  // returns, by process, what each sent to this one.
  virtual std::vector<std::string> exchange(std::vector<std::string> outgoing) = 0;
  // Seconds spent in exchange() so far, waiting for the others included (what the -vv step logs
  // tell apart from the work; 0 where not measured).
  virtual double exchange_seconds() const { return 0; }
  // Point-to-point, for replays whose values cross one dependency at a time (a round of exchange()
  // per hop would cost a collective each): `message` goes to process `to` (not this one) without
  // waiting for it to arrive; receive() waits for the next message sent to this process by any.
  // Every message sent must be received before the next exchange(). A group without it throws.
  virtual void send(int to, std::string message);
  virtual std::string receive();
};

// The group of one process: what a single-process analysis runs in.
class SoloProcess final : public ProcessGroup {
 public:
  int process() const override { return 0; }
  int processes() const override { return 1; }
  std::vector<std::string> exchange(std::vector<std::string> outgoing) override { return outgoing; }
};

// Collective: every process's `mine`, by process.
std::vector<std::string> all_gather(ProcessGroup& group, const std::string& mine);

// The trace ranks one process holds: [first, last), contiguous, so that results merged in process
// order are in rank order.
struct RankShare {
  Rank first = 0;
  Rank last = 0;
  bool owns(Rank r) const { return r >= first && r < last; }
  Rank size() const { return last - first; }
};

// Process `process` of `processes`: contiguous blocks of ranks with about the same number of
// events each (`events[r]`, as the definitions declare them). Processes beyond the rank count
// get empty shares (clamped_processes() says how many have ranks).
RankShare share_of(const std::vector<std::uint64_t>& events, int process, int processes);
int clamped_processes(std::size_t ranks, int processes);

// Collective: every process's share, by process; and the process whose share holds rank r.
std::vector<RankShare> gather_shares(ProcessGroup& group, RankShare mine);
int owner_of(const std::vector<RankShare>& shares, Rank r);

// Plain values in and out of a byte buffer (trivially copyable types and vectors of them).
class Packer {
 public:
  template <typename T>
  Packer& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    text_.append(reinterpret_cast<const char*>(&value), sizeof(T));
    return *this;
  }
  template <typename T>
  Packer& put_vector(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(values.size());
    text_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    return *this;
  }
  Packer& put_string(std::string_view s) {
    put<std::uint64_t>(s.size());
    text_.append(s);
    return *this;
  }
  std::size_t size() const { return text_.size(); }  // bytes put so far
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// One plain value as a buffer.
template <typename T>
std::string packed(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::string text(sizeof(T), '\0');
  std::memcpy(text.data(), &value, sizeof(T));
  return text;
}

class Unpacker {
 public:
  explicit Unpacker(std::string_view text) : text_(text) {}
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  template <typename T>
  std::vector<T> get_vector() {
    const auto n = get<std::uint64_t>();
    if (n > (text_.size() - at_) / (sizeof(T) ? sizeof(T) : 1)) throw Error("process exchange: a truncated message");
    std::vector<T> values(n);
    std::memcpy(values.data(), take(n * sizeof(T)), n * sizeof(T));
    return values;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    return std::string(take(n), n);
  }
  bool done() const { return at_ == text_.size(); }

 private:
  const char* take(std::size_t n) {
    if (n > text_.size() - at_) throw Error("process exchange: a truncated message");
    const char* p = text_.data() + at_;
    at_ += n;
    return p;
  }
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace wisp
