// replay(): runs the simulation in a forked child (SimGrid allows one engine per process) and
// reads its outcome back through a pipe: status, statistics and the simulated time of every
// event (8 bytes per event), or the deadlock report or error message. The parent rebuilds the
// simulated trace with TraceBuilder (retimed()).
#include "wisp/replay/replay.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "allocation_cache.hpp"
#include "simulation.hpp"
#include "wisp/io/interrupt.hpp"
#include "wisp/replay/retime.hpp"

namespace wisp {

namespace {

constexpr std::uint32_t kMagic = 0x52505357;  // "WSPR"
// SimGrid keeps time in double seconds and overflows its event heap near 9.2e9 s; a simulated
// run longer than this is an error (scale factors of 1e15 silently gave wrong gains).
constexpr double kLongestSimulation = 1e9;
enum class Status : std::uint32_t { Ok = 0, Deadlock = 1, Failed = 2 };

// --- encoding ------------------------------------------------------------------------------

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  template <typename T> void value(const T& v) { bytes(&v, sizeof v); }
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

 private:
  int fd_;
};

class Reader {
 public:
  explicit Reader(const std::string& data) : data_(data) {}
  template <typename T> T value() {
    T v;
    need(sizeof v);
    std::memcpy(&v, data_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string text() {
    const auto n = value<std::uint64_t>();
    need(n);
    std::string s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  void doubles(std::vector<double>& out, std::uint64_t n) {
    need(n * sizeof(double));
    out.resize(n);
    std::memcpy(out.data(), data_.data() + pos_, n * sizeof(double));
    pos_ += n * sizeof(double);
  }

 private:
  void need(std::uint64_t n) const {
    if (data_.size() - pos_ < n) throw Error("replay: the simulation process sent a truncated answer");
  }
  const std::string& data_;
  std::size_t pos_ = 0;
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
  w.value(s.simulation_seconds);
  w.value(s.child_seconds);
  w.value(s.child_start_rss_kib);
  w.value(s.child_peak_rss_kib);
}

ReplayStatistics read_statistics(Reader& r) {
  ReplayStatistics s;
  s.events = r.value<std::uint64_t>();
  s.mpi_operations = r.value<std::uint64_t>();
  s.messages = r.value<std::uint64_t>();
  s.simulation_seconds = r.value<double>();
  s.child_seconds = r.value<double>();
  s.child_start_rss_kib = r.value<std::uint64_t>();
  s.child_peak_rss_kib = r.value<std::uint64_t>();
  return s;
}

// --- child ---------------------------------------------------------------------------------

int run_child(int fd, const Trace& trace, const Platform& platform, const ReplayOptions& options) {
  Writer w(fd);
  w.value(kMagic);
  const std::uint64_t start_rss = proc_status_kib("VmRSS:");
  replay_impl::enable_allocation_cache();  // this process ends with the simulation
  try {
    replay_impl::SimulationOutcome out = replay_impl::simulate(trace, platform, options);
    out.stats.child_start_rss_kib = start_rss;
    out.stats.child_peak_rss_kib = proc_status_kib("VmHWM:");
    if (out.deadlock) {
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
      return 0;
    }
    w.value(Status::Ok);
    write_statistics(w, out.stats);
    w.value<std::uint64_t>(out.times.size());
    for (const auto& t : out.times) {
      w.value<std::uint64_t>(t.size());
      w.bytes(t.data(), t.size() * sizeof(double));
    }
    w.value<std::uint64_t>(out.residuals.size());
    for (const auto& r : out.residuals) {
      w.value<std::uint64_t>(r.size());
      w.bytes(r.data(), r.size() * sizeof(double));
    }
    return 0;
  } catch (const std::exception& e) {
    w.value(Status::Failed);
    w.text(e.what());
    return 0;
  }
}

std::string read_all(int fd) {
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
}

void check(const Platform& p, const ReplayOptions& o, const Trace& trace) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(p.speed_factor) || !positive(p.bandwidth_factor) || !std::isfinite(p.latency_factor) ||
      p.latency_factor < 0)
    throw Error("replay: speed and bandwidth factors must be positive, the latency factor not negative");
  if (p.file.empty()) {
    if (!positive(p.speed) || !positive(p.bandwidth) || !(p.latency >= 0) || p.cores == 0)
      throw Error("replay: the generated platform needs a positive speed, bandwidth and core count "
                  "and a non-negative latency");
    if (p.topology != Topology::Crossbar && p.topology_parameters.empty())
      throw Error(fmt::format("replay: a {} platform needs topology parameters", to_string(p.topology)));
  }
  if (p.reference_speed < 0) throw Error("replay: the reference speed must not be negative");
  if (o.init_time && !(*o.init_time >= 0)) throw Error("replay: the MPI_Init time must not be negative");
  auto seconds = [](double v) { return std::isfinite(v) && v >= 0 && v <= kLongestSimulation; };
  if (!seconds(p.mpi.default_overhead))
    throw Error(fmt::format("replay: the MPI overhead {} s is not between 0 and {:g} s", p.mpi.default_overhead,
                            kLongestSimulation));
  for (const auto& [name, v] : p.mpi.overheads)
    if (!seconds(v))
      throw Error(fmt::format("replay: the overhead of {} ({} s) is not between 0 and {:g} s", name, v, kLongestSimulation));
  if (o.anchor && o.residuals)
    throw Error("replay: an anchored replay derives residuals; it cannot also be given them");
  if (trace.defs.comms.size() >= (1u << 20) || trace.rank_count() >= (1u << 22))
    throw Error("replay: at most 4194303 ranks and 1048575 communicators are supported");
}

}  // namespace

ReplayDeadlock::ReplayDeadlock(double time, std::vector<BlockedRank> blocked)
    : Error([&] {
        std::string s = std::isfinite(time) && time <= kLongestSimulation
                            ? fmt::format("replay deadlocked at simulated time {:.9f} s: {} rank(s) blocked", time,
                                          blocked.size())
                            : fmt::format("replay stopped after the simulated clock overflowed (a factor or time "
                                          "too large): {} rank(s) blocked", blocked.size());
        for (std::size_t i = 0; i < blocked.size() && i < 16; ++i) {
          const BlockedRank& b = blocked[i];
          s += fmt::format("{} rank {} in {} (event {}) waiting for {}", i ? ";" : ":", b.rank, b.call,
                           b.event, b.waiting_for);
        }
        if (blocked.size() > 16) s += fmt::format("; and {} more", blocked.size() - 16);
        return s;
      }()),
      time_(time),
      blocked_(std::move(blocked)) {}

std::vector<std::string> read_hostfile(const std::filesystem::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "r");
  if (!f) throw Error(fmt::format("hostfile {}: cannot open the file", file.string()));
  std::vector<std::string> hosts;
  char buffer[4096];
  std::size_t line = 0;
  while (std::fgets(buffer, sizeof buffer, f)) {
    ++line;
    std::string text(buffer);
    if (const auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) continue;
    text = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
    std::uint64_t count = 1;
    if (const auto colon = text.rfind(':'); colon != std::string::npos) {
      const std::string n = text.substr(colon + 1);
      char* end = nullptr;
      count = std::strtoull(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || count == 0 || count > 1000000) {
        std::fclose(f);
        throw Error(fmt::format("hostfile {} line {}: '{}' is not like name or name:N (N >= 1)",
                                file.string(), line, text));
      }
      text.resize(colon);
    }
    hosts.insert(hosts.end(), count, text);
  }
  std::fclose(f);
  if (hosts.empty()) throw Error(fmt::format("hostfile {}: no host names", file.string()));
  return hosts;
}

ReplayResult replay(const Trace& trace, const Platform& platform, const ReplayOptions& options) {
  check(platform, options, trace);
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("replay: cannot create a pipe: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  spdlog::default_logger()->flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(fmt::format("replay: cannot start the simulation process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // The parent's crash handlers (e.g. a test framework's) must not report for the child.
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT}) std::signal(sig, SIG_DFL);
    interrupt::child_started();
    ::close(fds[0]);
    const int code = run_child(fds[1], trace, platform, options);
    ::close(fds[1]);
    spdlog::default_logger()->flush();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  interrupt::add_child(pid);
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  interrupt::remove_child(pid);
  if (WIFSIGNALED(status))
    throw Error(fmt::format("replay: the simulation process was killed by signal {} ({}); SimGrid's "
                            "messages above say why", WTERMSIG(status), strsignal(WTERMSIG(status))));
  Reader in(data);
  if (data.size() < sizeof kMagic || in.value<std::uint32_t>() != kMagic)
    throw Error("replay: the simulation process ended without an answer");
  const auto st = in.value<Status>();
  if (st == Status::Failed) throw Error(in.text());
  ReplayStatistics stats = read_statistics(in);
  if (st == Status::Deadlock) {
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
  std::vector<std::vector<double>> times(in.value<std::uint64_t>());
  for (auto& t : times) in.doubles(t, in.value<std::uint64_t>());
  for (const auto& t : times)
    if (!t.empty() && !(t.back() <= kLongestSimulation))  // NaN too
      throw Error(fmt::format("replay: the simulated run would last {:g} s, beyond the {:g} s SimGrid's clock "
                              "resolves; a factor or a time in the scenario or platform is too large",
                              t.back(), kLongestSimulation));
  CallResiduals residuals;
  residuals.by_rank.resize(in.value<std::uint64_t>());
  for (auto& r : residuals.by_rank) in.doubles(r, in.value<std::uint64_t>());

  ReplayResult result;
  result.trace = retimed(trace, times);
  result.statistics = stats;
  if (options.anchor && !options.zero_communication)
    result.residuals = std::make_shared<const CallResiduals>(std::move(residuals));
  result.rank_end.assign(result.trace.rank_count(), 0.0);
  for (Rank r = 0; r < result.trace.rank_count(); ++r) {
    const auto& ev = result.trace.ranks[r].events;
    if (!ev.empty()) result.rank_end[r] = ev.back().time;
    result.runtime = std::max(result.runtime, result.rank_end[r]);
  }
  return result;
}

}  // namespace wisp
