// The simulation process's answer: encoding in the child, decoding in replay(). See
// simulation_answer.hpp.
#include "simulation_answer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "allocation_cache.hpp"

namespace wisp::replay_impl {

namespace {

constexpr std::uint32_t kMagic = 0x52505357;  // "WSPR"
enum class Status : std::uint32_t { Ok = 0, Deadlock = 1, Failed = 2 };

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
  void text(const std::string& s) {
    value<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  void bytes(const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = ::write(fd_, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(4);  // the parent is gone
      p += n;
      size -= static_cast<std::size_t>(n);
    }
  }
  void tables(const std::vector<std::vector<double>>& rows) {
    value<std::uint64_t>(rows.size());
    for (const auto& row : rows) {
      value<std::uint64_t>(row.size());
      bytes(row.data(), row.size() * sizeof(double));
    }
  }

 private:
  int fd_;
};

// Decodes the answer as it arrives from the pipe: the times go straight into their vectors (no
// copy of the whole answer in between).
class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  template <typename T>
  T value() {
    T v;
    bytes(&v, sizeof v);
    return v;
  }
  std::string text() {
    const auto n = value<std::uint64_t>();
    std::string s;
    while (s.size() < n) {  // by pieces: a corrupt length ends at the pipe's end, not in one allocation
      const std::size_t piece = std::min<std::uint64_t>(n - s.size(), 1 << 16);
      const std::size_t at = s.size();
      s.resize(at + piece);
      bytes(s.data() + at, piece);
    }
    return s;
  }
  void doubles(std::vector<double>& out, std::uint64_t n) {
    out.clear();
    while (out.size() < n) {  // as text(): grown as the data arrives
      const std::size_t piece = std::min<std::uint64_t>(n - out.size(), 1 << 20);
      const std::size_t at = out.size();
      out.resize(at + piece);
      bytes(out.data() + at, piece * sizeof(double));
    }
  }
  void tables(std::vector<std::vector<double>>& rows) {
    const auto n = value<std::uint64_t>();
    rows.clear();
    for (std::uint64_t i = 0; i < n; ++i) {
      rows.emplace_back();
      doubles(rows.back(), value<std::uint64_t>());
    }
  }

 private:
  void bytes(void* to, std::size_t size) {
    char* p = static_cast<char*>(to);
    while (size > 0) {
      const ssize_t n = ::read(fd_, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error("replay: the simulation process sent a truncated answer");
      p += n;
      size -= static_cast<std::size_t>(n);
    }
  }
  int fd_;
};

// A "VmRSS:" / "VmHWM:" line of /proc/self/status [KiB] (0 if unavailable).
std::uint64_t proc_status_kib(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  std::uint64_t value = 0;
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0) value = std::strtoull(line + n, nullptr, 10);
  std::fclose(f);
  return value;
}

void write_statistics(Writer& w, const ReplayStatistics& s) {
  w.value(s.events);
  w.value(s.mpi_operations);
  w.value(s.messages);
  w.value(s.without_activity);
  w.value(s.probes);
  w.value(s.bytes_between_hosts);
  w.value(s.simulation_seconds);
  w.value(s.child_seconds);
  w.value(s.child_start_rss_kib);
  w.value(s.child_peak_rss_kib);
  w.value(s.reference_speed);
  w.value(s.route_latency);
  w.value(s.route_bandwidth);
  w.value(static_cast<std::uint64_t>(s.rank_hosts.size()));
  for (const std::string& h : s.rank_hosts) w.text(h);
  w.value(s.ranks_sharing_cores);
  w.text(s.sharing_example);
}

ReplayStatistics read_statistics(Reader& r) {
  ReplayStatistics s;
  s.events = r.value<std::uint64_t>();
  s.mpi_operations = r.value<std::uint64_t>();
  s.messages = r.value<std::uint64_t>();
  s.without_activity = r.value<std::uint64_t>();
  s.probes = r.value<std::uint64_t>();
  s.bytes_between_hosts = r.value<std::uint64_t>();
  s.simulation_seconds = r.value<double>();
  s.child_seconds = r.value<double>();
  s.child_start_rss_kib = r.value<std::uint64_t>();
  s.child_peak_rss_kib = r.value<std::uint64_t>();
  s.reference_speed = r.value<double>();
  s.route_latency = r.value<double>();
  s.route_bandwidth = r.value<double>();
  for (auto n = r.value<std::uint64_t>(); n > 0; --n) s.rank_hosts.push_back(r.text());  // each checks the size
  s.ranks_sharing_cores = r.value<std::uint32_t>();
  s.sharing_example = r.text();
  return s;
}

void write_deadlock(Writer& w, const SimulationOutcome& out) {
  w.value(Status::Deadlock);
  write_statistics(w, out.stats);
  w.value(out.deadlock_time);
  w.value<std::uint64_t>(out.blocked.size());
  for (const BlockedRank& b : out.blocked) {
    w.value(b.rank);
    w.value(b.event);
    w.text(b.call);
    w.text(b.waiting_for);
  }
}

[[noreturn]] void throw_deadlock(Reader& in) {
  const double time = in.value<double>();
  std::vector<BlockedRank> blocked(in.value<std::uint64_t>());
  for (BlockedRank& b : blocked) {
    b.rank = in.value<Rank>();
    b.event = in.value<EventIndex>();
    b.call = in.text();
    b.waiting_for = in.text();
  }
  throw ReplayDeadlock(time, std::move(blocked));
}

void check_length(const std::vector<std::vector<double>>& times) {
  for (const auto& t : times)
    if (!t.empty() && !(t.back() <= kLongestSimulation))  // NaN too
      throw Error(
          fmt::format("replay: the simulated run would last {:g} s, beyond the {:g} s SimGrid's clock "
                      "resolves; a factor or a time in the scenario or platform is too large",
                      t.back(), kLongestSimulation));
}

}  // namespace

int simulate_and_answer(int fd, const Trace& trace, const Platform& platform, const ReplayOptions& options,
                        bool runtime_only) {
  Writer w(fd);
  w.value(kMagic);
  const std::uint64_t start_rss = proc_status_kib("VmRSS:");
  enable_allocation_cache();  // this process ends with the simulation
  try {
    SimulationOutcome out = simulate(trace, platform, options, runtime_only);
    out.stats.child_start_rss_kib = start_rss;
    out.stats.child_peak_rss_kib = proc_status_kib("VmHWM:");
    if (out.deadlock) {
      write_deadlock(w, out);
      return 0;
    }
    w.value(Status::Ok);
    write_statistics(w, out.stats);
    w.tables(out.times);
    w.tables(out.residuals);
    w.tables(out.calls.enter);
    w.tables(out.calls.model_end);
    return 0;
  } catch (const std::exception& e) {
    w.value(Status::Failed);
    w.text(e.what());
    return 0;
  }
}

SimulatedTimes read_answer(int fd) {
  Reader in(fd);
  std::uint32_t magic = 0;
  try {
    magic = in.value<std::uint32_t>();
  } catch (const Error&) {}
  if (magic != kMagic) throw Error("replay: the simulation process ended without an answer");
  const auto st = in.value<Status>();
  if (st == Status::Failed) throw Error(in.text());
  SimulatedTimes out;
  out.stats = read_statistics(in);
  if (st == Status::Deadlock) throw_deadlock(in);
  in.tables(out.times);
  check_length(out.times);
  in.tables(out.residuals);
  in.tables(out.calls.enter);
  in.tables(out.calls.model_end);
  return out;
}

}  // namespace wisp::replay_impl
