// Process groups for tests: `processes` threads in this process standing in for the ranks of an
// MPI job, exchanging through shared memory, so that an analysis spread over processes can be
// compared with the single-process one in a unit test (mpirun is tested apart).
#pragma once

#include <barrier>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "wisp/group/process_group.hpp"

namespace wisp::test {

// The real traces (tests/data) the spread analyses are compared on: every kind of application,
// writer and clock anomaly the shared traces have.
inline constexpr const char* kSpreadRealTraces[] = {"apps/sweep3d_50c_6r",
                                                    "apps/cloverleaf_bm_short_4r",
                                                    "apps/cloverleaf_2r",
                                                    "apps/minife_100c_imb20_4r",
                                                    "apps/npb_lu_W_4r",
                                                    "whatif/minife2/imb20_A",
                                                    "whatif/imb8_barrier/dynamic",
                                                    "whatif/imb8_ring/static",
                                                    "other-writers/sstmacro-otf2_test_traces",
                                                    "other-writers/casita-2_jacobi_blame_cpu_015",
                                                    "other-writers/casita-10_scorep_mpi_tags",
                                                    "scorep-ping-pong"};

class ThreadGroup final : public ProcessGroup {
 public:
  struct Mailbox {  // point-to-point messages to one process
    std::mutex mutex;
    std::condition_variable arrived;
    std::deque<std::string> messages;
  };
  struct Shared {
    explicit Shared(int n)
        : size(n), sync(n), boxes(static_cast<std::size_t>(n) * n), mailboxes(static_cast<std::size_t>(n)) {}
    int size;
    std::barrier<> sync;
    std::vector<std::string> boxes;  // [from * size + to]
    std::vector<Mailbox> mailboxes;
  };
  ThreadGroup(Shared& shared, int process) : shared_(shared), process_(process) {}
  int process() const override { return process_; }
  int processes() const override { return shared_.size; }
  std::vector<std::string> exchange(std::vector<std::string> outgoing) override {
    const auto n = static_cast<std::size_t>(shared_.size);
    for (std::size_t to = 0; to < n; ++to) shared_.boxes[process_ * n + to] = std::move(outgoing[to]);
    shared_.sync.arrive_and_wait();
    std::vector<std::string> in(n);
    for (std::size_t from = 0; from < n; ++from) in[from] = std::move(shared_.boxes[from * n + process_]);
    shared_.sync.arrive_and_wait();
    return in;
  }
  void send(int to, std::string message) override {
    Mailbox& box = shared_.mailboxes[static_cast<std::size_t>(to)];
    {
      const std::lock_guard lock(box.mutex);
      box.messages.push_back(std::move(message));
    }
    box.arrived.notify_one();
  }
  std::string receive() override {
    Mailbox& box = shared_.mailboxes[static_cast<std::size_t>(process_)];
    std::unique_lock lock(box.mutex);
    box.arrived.wait(lock, [&] { return !box.messages.empty(); });
    std::string message = std::move(box.messages.front());
    box.messages.pop_front();
    return message;
  }

 private:
  Shared& shared_;
  int process_;
};

// Runs `work(group)` on `processes` threads, each its own process of one group; rethrows the
// first exception (a thrown exception must be thrown by every process, as with MPI).
inline void on_processes(int processes, const std::function<void(ProcessGroup&)>& work) {
  ThreadGroup::Shared shared(processes);
  std::mutex mutex;
  std::exception_ptr error;
  {
    std::vector<std::jthread> threads;
    for (int p = 0; p < processes; ++p)
      threads.emplace_back([&, p] {
        ThreadGroup group(shared, p);
        try {
          work(group);
        } catch (...) {
          const std::lock_guard lock(mutex);
          if (!error) error = std::current_exception();
        }
      });
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace wisp::test
