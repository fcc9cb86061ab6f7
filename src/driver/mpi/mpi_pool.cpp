// The MPI work pool: every MPI call of wisp is in this file. See mpi_pool.hpp. Messages are
// strings (MPI_CHAR): an item to compute with its attachment ("ITEM\nATTACHMENT"), a result
// ("ITEM\nANSWER") or stop. Every wait (the pool's and the process group's) tests with short
// sleeps, so that idle ranks leave the cores to the replays' processes.
// The C API only (Open MPI and MPICH would otherwise pull in their C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <list>
#include <map>
#include <string>
#include <thread>

#include "wisp/driver/mpi_pool.hpp"
#include "wisp/error.hpp"

namespace wisp {

namespace {

constexpr int kTagResult = 2;
constexpr int kTagWork = 3;
constexpr int kTagStop = 4;

struct Message {
  int source = 0;
  int tag = 0;
  std::string text;
};

// An MPI call's failure as one line (the session sets MPI_ERRORS_RETURN).
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

void send(const std::string& text, int to, int tag) {
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("MPI_Send: a message of " + std::to_string(text.size()) + " bytes is more than one send can carry");
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

// Waits until `ready()` without holding a core: the processes of a job share the node with the
// replays' child processes, and an idle process spinning in MPI takes a core from them. Waits
// under 10 ms (the analyses' exchanges: thousands of hops each way) yield between tests, so they are
// answered at once; longer ones (a rank idle while process 0 replays) sleep between tests, 20 us at
// first, up to 1 ms (at most a tenth more than the wait).
template <typename Ready>
void wait_politely(const Ready& ready) {
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  while (!ready()) {
    if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(10)) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

void wait_all(std::vector<MPI_Request>& requests) {
  wait_politely([&] {
    int done = 0;
    check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    return done != 0;
  });
}

// The status of the next message from `from` with `tag` (MPI_ANY_SOURCE, MPI_ANY_TAG: any).
MPI_Status probe(int from, int tag) {
  MPI_Status status;
  wait_politely([&] {
    int flag = 0;
    check(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    return flag != 0;
  });
  return status;
}

Message receive(int from) {
  const MPI_Status status = probe(from, MPI_ANY_TAG);
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  Message m{status.MPI_SOURCE, status.MPI_TAG, std::string(static_cast<std::size_t>(count), '\0')};
  check(MPI_Recv(m.text.data(), count, MPI_CHAR, m.source, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return m;
}

std::vector<std::size_t> values_of(const std::map<int, std::size_t>& running) {
  std::vector<std::size_t> out;
  for (const auto& [rank, item] : running) out.push_back(item);
  return out;
}

// Rank 0's view of one batch: the items not handed out yet, who computes what, who waits.
struct Batch {
  std::vector<std::size_t> pending;
  std::map<int, std::size_t> running;  // rank -> item
  std::vector<int> idle;
};

// An MPI failure on rank 0: the work in flight is lost (work.lost throws).
template <typename Step>
auto guarded(const Batch& b, const PoolWork& work, Step&& step) {
  try {
    return step();
  } catch (const Error& e) {
    work.lost(values_of(b.running), e.what());
    throw;
  }
}

// Hands the first ready items to the idle workers.
void hand_out(Batch& b, const PoolWork& work) {
  while (!b.idle.empty()) {
    const auto it = std::find_if(b.pending.begin(), b.pending.end(),
                                 [&](std::size_t item) { return !work.ready || work.ready(item); });
    if (it == b.pending.end()) return;
    const int rank = b.idle.back();
    const std::size_t item = *it;
    b.idle.pop_back();
    b.pending.erase(it);
    b.running[rank] = item;
    // Said before the item leaves: a worker may die as it arrives and the job end at once.
    if (work.unfinished) work.unfinished(values_of(b.running));
    const std::string attachment = work.attach ? work.attach(item, rank) : std::string();
    guarded(b, work, [&] { send(std::to_string(item) + "\n" + attachment, rank, kTagWork); });
  }
}

// The worker's answer to its item, to `finished`; the worker is idle again.
void take_answer(Batch& b, const PoolWork& work, const Message& m) {
  const std::size_t split = m.text.find('\n');
  const std::size_t item = std::stoull(m.text.substr(0, split));
  b.running.erase(m.source);
  b.idle.push_back(m.source);
  work.finished(item, m.source, m.text.substr(split + 1));
}

}  // namespace

void mpi_schedule(const MpiSession& session, const std::vector<std::size_t>& items, const PoolWork& work) {
  if (!session.active() || session.size() < 2 || session.rank() != 0)
    throw Error("mpi_schedule: needs rank 0 of an MPI job of at least 2 ranks");
  Batch b{items, {}, {}};
  for (int r = session.size() - 1; r >= 1; --r) b.idle.push_back(r);  // rank 1 first
  for (;;) {
    hand_out(b, work);
    if (work.unfinished) work.unfinished(values_of(b.running));
    if (b.running.empty()) {
      if (b.pending.empty()) return;
      throw Error("mpi_schedule: items are left whose inputs never came");
    }
    const Message m = guarded(b, work, [] { return receive(MPI_ANY_SOURCE); });
    if (m.tag == kTagResult) take_answer(b, work, m);
  }
}

void mpi_release(const MpiSession& session) {
  for (int r = 1; r < session.size(); ++r) send("", r, kTagStop);
}

void mpi_serve(const MpiSession& session, const PoolWork& work) {
  for (;;) {
    const Message m = receive(0);
    if (m.tag == kTagStop) return;
    const std::size_t split = m.text.find('\n');
    const std::string item = m.text.substr(0, split);
    send(item + "\n" + work.compute(std::stoull(item), m.text.substr(split + 1)), 0, kTagResult);
  }
}

namespace {

class MpiProcessGroup final : public ProcessGroup {
 public:
  explicit MpiProcessGroup(const MpiSession& session) : process_(session.rank()), processes_(session.size()) {}
  // -vv: how much the spread analysis exchanged, and how long this process spent in the exchanges
  // (its own sends and receives, and waiting for the processes behind it).
  ~MpiProcessGroup() override {
    for (auto& [text, request] : sends_) MPI_Wait(&request, MPI_STATUS_IGNORE);  // no throwing here
    spdlog::debug("process {}: {} exchanges and {} point-to-point messages, {:.1f} MB sent, {:.3f} s in them", process_,
                  exchanges_, messages_, sent_ / 1e6, seconds_);
  }
  int process() const override { return process_; }
  int processes() const override { return processes_; }
  double exchange_seconds() const override { return seconds_; }

  std::vector<std::string> exchange(std::vector<std::string> outgoing) override {
    constexpr int kTagExchange = 11;
    constexpr std::size_t kChunk = std::size_t(1) << 30;
    complete_sends();
    const double start = MPI_Wtime();
    ++exchanges_;
    const auto P = static_cast<std::size_t>(processes_);
    const auto me = static_cast<std::size_t>(process_);
    std::vector<std::uint64_t> out_sizes(P), in_sizes(P);
    for (std::size_t p = 0; p < P; ++p) out_sizes[p] = outgoing[p].size();
    std::vector<MPI_Request> requests(1);
    check(MPI_Ialltoall(out_sizes.data(), 1, MPI_UINT64_T, in_sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD,
                        requests.data()),
          "MPI_Ialltoall");
    wait_all(requests);
    requests.clear();
    std::vector<std::string> incoming(P);
    const auto post = [&](char* data, std::size_t size, std::size_t peer, bool receive) {
      for (std::size_t at = 0; at < size; at += kChunk) {
        const int n = static_cast<int>(std::min(kChunk, size - at));
        MPI_Request r;
        if (receive)
          check(MPI_Irecv(data + at, n, MPI_CHAR, static_cast<int>(peer), kTagExchange, MPI_COMM_WORLD, &r),
                "MPI_Irecv");
        else
          check(MPI_Isend(data + at, n, MPI_CHAR, static_cast<int>(peer), kTagExchange, MPI_COMM_WORLD, &r),
                "MPI_Isend");
        requests.push_back(r);
      }
    };
    for (std::size_t p = 0; p < P; ++p) {
      if (p == me) continue;
      incoming[p].resize(in_sizes[p]);
      post(incoming[p].data(), in_sizes[p], p, true);
    }
    for (std::size_t p = 0; p < P; ++p)
      if (p != me) {
        post(outgoing[p].data(), outgoing[p].size(), p, false);
        sent_ += outgoing[p].size();
      }
    wait_all(requests);
    incoming[me] = std::move(outgoing[me]);
    seconds_ += MPI_Wtime() - start;
    return incoming;
  }

  // MPI_Isend of a buffer kept until it completes (the finished ones are dropped as more go out).
  void send(int to, std::string message) override {
    if (message.size() > std::size_t{INT32_MAX}) throw Error("process group: a point-to-point message over 2 GiB");
    while (!sends_.empty()) {
      int done = 0;
      check(MPI_Test(&sends_.front().second, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) break;
      sends_.pop_front();
    }
    ++messages_;
    sent_ += message.size();
    sends_.emplace_back(std::move(message), MPI_REQUEST_NULL);
    std::string& text = sends_.back().first;
    check(MPI_Isend(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, kTagPoint, MPI_COMM_WORLD,
                    &sends_.back().second),
          "MPI_Isend");
  }
  std::string receive() override {
    const double start = MPI_Wtime();
    MPI_Status status = probe(MPI_ANY_SOURCE, kTagPoint);
    int size = 0;
    check(MPI_Get_count(&status, MPI_CHAR, &size), "MPI_Get_count");
    std::string message(static_cast<std::size_t>(size), '\0');
    check(MPI_Recv(message.data(), size, MPI_CHAR, status.MPI_SOURCE, kTagPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    seconds_ += MPI_Wtime() - start;
    return message;
  }

 private:
  static constexpr int kTagPoint = 12;
  void complete_sends() {
    for (auto& [text, request] : sends_) check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    sends_.clear();
  }

  int process_, processes_;
  std::uint64_t exchanges_ = 0, sent_ = 0, messages_ = 0;
  double seconds_ = 0;
  std::list<std::pair<std::string, MPI_Request>> sends_;  // point-to-point sends not known complete
};

}  // namespace

std::unique_ptr<ProcessGroup> mpi_process_group(const MpiSession& session) {
  if (!session.active()) return std::make_unique<SoloProcess>();
  return std::make_unique<MpiProcessGroup>(session);
}

bool built_with_mpi() { return true; }

MpiSession::MpiSession() {
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
  if (!active_) return;
  if (std::uncaught_exceptions() > 0 && size_ > 1) return;  // the launcher ends the job
  MPI_Finalize();
}

void mpi_pool(const MpiSession& session, const std::vector<std::size_t>& items, const PoolWork& work) {
  if (!session.active() || session.size() < 2) throw Error("mpi_pool: needs an MPI job of at least 2 ranks");
  if (session.rank() != 0) return mpi_serve(session, work);
  mpi_schedule(session, items, work);
  mpi_release(session);
}

}  // namespace wisp
