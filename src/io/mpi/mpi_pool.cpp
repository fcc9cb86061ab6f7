// The MPI work pool: every MPI call of wisp is in this file. See mpi_pool.hpp. Messages are
// strings (MPI_CHAR): "ready", a result ("ITEM\nANSWER"), an item to compute or stop. Waiting is
// MPI_Iprobe with short sleeps, so that idle ranks leave the cores to the replays' processes.
// The C API only (Open MPI and MPICH would otherwise pull in their C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <string>
#include <thread>

#include "wisp/error.hpp"
#include "wisp/io/mpi_pool.hpp"

namespace wisp {

namespace {

constexpr int kTagReady = 1;
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
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

Message receive(int from) {
  MPI_Status status;
  int flag = 0;
  for (auto pause = std::chrono::microseconds(20);; pause = std::min(pause * 2, std::chrono::microseconds(2000))) {
    check(MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (flag) break;
    std::this_thread::sleep_for(pause);
  }
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

// Rank 0: answer every message with the next item or stop, until every worker is stopped.
void schedule(int workers, const std::vector<std::size_t>& items, const PoolWork& work) {
  std::map<int, std::size_t> running;  // rank -> item
  std::size_t next = 0;
  for (int stopped = 0; stopped < workers;) {
    Message m;
    try {
      m = receive(MPI_ANY_SOURCE);
    } catch (const Error& e) {
      work.lost(values_of(running), e.what());
      throw;
    }
    if (m.tag == kTagResult) {
      const std::size_t split = m.text.find('\n');
      const std::size_t item = std::stoull(m.text.substr(0, split));
      running.erase(m.source);
      work.finished(item, m.text.substr(split + 1));
    }
    if (next < items.size()) {
      running[m.source] = items[next];
      try {
        send(std::to_string(items[next++]), m.source, kTagWork);
      } catch (const Error& e) {
        work.lost(values_of(running), e.what());
        throw;
      }
    } else {
      send("", m.source, kTagStop);
      ++stopped;
    }
    if (work.unfinished) work.unfinished(values_of(running));
  }
}

// Ranks 1..: ask, compute, answer, until told to stop.
void serve(const PoolWork& work) {
  send("", 0, kTagReady);
  for (;;) {
    const Message m = receive(0);
    if (m.tag == kTagStop) return;
    const std::size_t item = std::stoull(m.text);
    send(std::to_string(item) + "\n" + work.compute(item), 0, kTagResult);
  }
}

}  // namespace

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
  if (session.rank() == 0) schedule(session.size() - 1, items, work);
  else serve(work);
}

}  // namespace wisp
