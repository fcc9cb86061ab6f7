// The processes one analysis is spread over (the ranks of an MPI job, or threads in a test), as in
// Scalasca's parallel replay: what crosses processes moves by collective exchanges of byte buffers,
// so that no layer above sees MPI (driver/mpi_pool.hpp makes the MPI group; SoloProcess is the group
// of one). The bottom layer: it knows no trace.
#pragma once

#include <string>
#include <vector>

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

}  // namespace wisp
