// GOAL schedules (LogGOPSim's text grammar): one `calc` per computation interval, one send/recv
// per point-to-point message and per message of a collective expanded by the replay's algorithm;
// Wait/Test complete requests as dependencies, not operations. See export.hpp.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "collective_schedule.hpp"
#include "mpi_program.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/replay/export.hpp"

namespace wisp {

namespace replay_impl {
namespace {

// Tags: a point-to-point message is tagged with its index in Trace::messages, a collective's
// message with its place in the (communicator, sender, receiver) message order after those, so
// every receive matches exactly its send whatever LogGOPSim's arrival order.
struct GoalTags {
  std::uint64_t first_collective = 0;  // = number of point-to-point messages
  std::uint64_t comms = 1;
  std::uint32_t collective(std::uint64_t sequence, CommId comm) const {
    const std::uint64_t tag = first_collective + sequence * comms + comm;
    if (tag > std::numeric_limits<std::uint32_t>::max())
      throw Error(fmt::format("GOAL export: more than 2^32 messages; LogGOPSim's tags are 32-bit"));
    return static_cast<std::uint32_t>(tag);
  }
};

class GoalRank final : public ProgramWriter, public CollectiveMessenger {
 public:
  GoalRank(const Trace& trace, Rank rank, const ExportPlatform& platform, const ExportOptions& options,
           const GoalTags& tags, std::string& out, ExportLeftOut& left)
      : trace_(trace), rank_(rank), platform_(platform), options_(options), tags_(tags), out_(out), left_(left) {
    scale_ = options.picoseconds ? 1e12 : 1e9;
  }

  std::uint64_t operations = 0, dependencies = 0;

  void compute(double seconds) override { calc(seconds); }
  void idle(double seconds) override { calc(seconds); }

  void call(const ProgramCall& c) override {
    if (c.init && c.init_wait > 0) calc(c.init_wait);
    std::vector<std::uint32_t> blocking;
    for (const ProgramOperation& op : c.operations) {
      if (op.kind == ProgramOperation::Kind::Collective) {
        collective(collective_call(trace_.ranks[rank_].collectives[op.record]), blocking);
        continue;
      }
      const P2P& p = trace_.ranks[rank_].p2p[op.record];
      left_.synchronous_sends += op.synchronous && p.bytes <= platform_.mpi.eager_threshold;
      const std::uint32_t tag = static_cast<std::uint32_t>(p.message);
      const std::uint32_t label =
          op.kind == ProgramOperation::Kind::Send
              ? emit("send", wire_bytes(platform_, p.peer, p.bytes), "to", p.peer, tag, frontier_)
              : emit("recv", wire_bytes(platform_, rank_, p.bytes), "from", p.peer, tag, frontier_);
      if (op.blocking)
        blocking.push_back(label);
      else
        requests_[op.record] = label;
    }
    if (c.finalize_barrier)
      collective(CollectiveCall{CollectiveOp::DestroyHandle, trace_.defs.world, kNone, 0, 0, 0, kNone}, blocking);
    // The call returns when its own operations and the requests it completes are done.
    for (std::uint32_t record : c.completed) {
      const auto it = requests_.find(record);
      if (it == requests_.end()) continue;
      if (blocking.empty()) blocking = frontier_;  // a Wait keeps what came before it
      blocking.push_back(it->second);
      requests_.erase(it);
    }
    if (!blocking.empty()) frontier_ = std::move(blocking);
    if (c.cost > 0) calc(c.cost);
  }

  // CollectiveMessenger: the schedule's messages, each after what the member waited for last.
  void post_send(std::uint32_t to, std::uint64_t bytes) override {
    const Rank peer = comm_->members[to];
    batch_.push_back(emit("send", wire_bytes(platform_, peer, bytes), "to", peer,
                          tags_.collective(sequence(peer, true), comm_id_), front_));
  }
  void post_receive(std::uint32_t from, std::uint64_t bytes) override {
    const Rank peer = comm_->members[from];
    batch_.push_back(emit("recv", wire_bytes(platform_, rank_, bytes), "from", peer,
                          tags_.collective(sequence(peer, false), comm_id_), front_));
  }
  void wait() override {
    if (batch_.empty()) return;
    front_ = std::move(batch_);
    batch_.clear();
  }

 private:
  void collective(const CollectiveCall& call, std::vector<std::uint32_t>& blocking) {
    const CollectiveAlgorithm a = schedule_algorithm(options_.algorithms, call.op, left_);
    comm_ = &trace_.defs.comms[call.comm];
    comm_id_ = call.comm;
    auto& local = local_[call.comm];
    if (local.empty()) local = local_ranks(trace_, call.comm);
    front_ = frontier_;
    send_collective_messages(trace_, call, local, rank_, a, *this);
    wait();
    if (front_ != frontier_) blocking.insert(blocking.end(), front_.begin(), front_.end());
  }

  std::uint64_t sequence(Rank peer, bool send) {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(comm_id_) << 33) | (static_cast<std::uint64_t>(peer) << 1) | send;
    return sequences_[key]++;
  }

  void calc(double seconds) {
    const auto units = static_cast<std::uint64_t>(std::llround(seconds * scale_));
    if (units == 0) return;
    const std::uint32_t label = next_label_++;
    out_ += fmt::format("l{}: calc {}\n", label, units);
    depend(label, frontier_);
    frontier_.assign(1, label);
    ++operations;
  }

  // LogGOPSim charges (s − 1)·G per message and wraps at s = 0: an empty message is written as
  // one byte, which costs exactly the same.
  std::uint32_t emit(const char* op, std::uint64_t bytes, const char* dir, Rank peer, std::uint32_t tag,
                     const std::vector<std::uint32_t>& after) {
    const std::uint32_t label = next_label_++;
    out_ += fmt::format("l{}: {} {}b {} {} tag {}\n", label, op, std::max<std::uint64_t>(bytes, 1), dir, peer, tag);
    depend(label, after);
    ++operations;
    return label;
  }

  void depend(std::uint32_t label, const std::vector<std::uint32_t>& after) {
    for (std::uint32_t a : after) out_ += fmt::format("l{} requires l{}\n", label, a);
    dependencies += after.size();
  }

  const Trace& trace_;
  Rank rank_;
  const ExportPlatform& platform_;
  const ExportOptions& options_;
  const GoalTags& tags_;
  std::string& out_;
  ExportLeftOut& left_;
  double scale_ = 1e9;
  std::uint32_t next_label_ = 0;
  std::vector<std::uint32_t> frontier_;                        // what the next operation waits for
  std::unordered_map<std::uint32_t, std::uint32_t> requests_;  // open request (p2p record) → its op
  // The collective being expanded.
  const Communicator* comm_ = nullptr;
  CommId comm_id_ = kNone;
  std::vector<std::uint32_t> front_, batch_;
  std::unordered_map<std::uint64_t, std::uint64_t> sequences_;
  std::map<CommId, std::vector<std::uint32_t>> local_;
};

// The mean per-call overhead over the trace's MPI calls (wisp's o is per call, LogGOP's per message).
double mean_overhead(const Trace& trace, const ProgramCosts& costs) {
  double sum = 0;
  std::uint64_t calls = 0;
  for (const RankTrace& rt : trace.ranks)
    for (const CallSpan& c : rt.mpi_calls) {
      sum += costs.overhead_of_region[trace.defs.callpaths[rt.events[c.enter].callpath()].region];
      ++calls;
    }
  return calls > 0 ? sum / static_cast<double>(calls) : 0;
}

std::string goal_header(const Trace& trace, const ExportPlatform& p, const ExportOptions& o, double overhead) {
  const double unit = o.picoseconds ? 1e12 : 1e9;
  const char* name = o.picoseconds ? "ps" : "ns";
  const double L = p.latency * unit, os = overhead * unit;
  const double G = p.bandwidth > 0 ? unit / p.bandwidth : 0;
  std::string h = fmt::format(
      "// GOAL schedule written by wisp from a trace of {} ranks; times in {}.\n"
      "// LogGOP parameters of the platform{}:\n"
      "//   L = {:.6g} {}  (route latency between two hosts)\n"
      "//   o = {:.6g} {}  (mean per-call overhead; wisp charges it once per MPI call, LogGOP per message)\n"
      "//   g = 0 {}  (wisp's model has no per-message gap)\n"
      "//   G = {:.6g} {}/byte  (1 / bandwidth {:.6g} bytes/s)\n"
      "//   O = 0 {}/byte  (no per-byte CPU overhead)\n"
      "//   S = {} bytes  (largest eager message)\n"
      "// LogGOPSim takes integers: txt2bin -i FILE -o FILE.bin && LogGOPSim -f FILE.bin -L {:.0f} -o {:.0f} -g 0 "
      "-G {:.0f} -O 0 -S {}\n",
      trace.rank_count(), name, p.platform_file.empty() ? std::string() : fmt::format(" {}", p.platform_file.string()),
      L, name, os, name, name, G, name, p.bandwidth, name, p.mpi.eager_threshold, L, os, G, p.mpi.eager_threshold);
  return h;
}

}  // namespace
}  // namespace replay_impl

ExportResult export_goal(const Trace& trace, const ExportPlatform& platform, const ExportOptions& options,
                         const std::filesystem::path& file) {
  using namespace replay_impl;
  ExportResult result{"goal", file, 0, 0, {}};
  count_beyond_mpi(trace, result.left_out);
  const ProgramCosts costs = program_costs(trace, platform.mpi, platform.rank_hosts);
  GoalTags tags{trace.messages.size(), std::max<std::uint64_t>(1, trace.defs.comms.size())};
  write_file_atomically(file, [&](std::ostream& os) {
    os << goal_header(trace, platform, options, mean_overhead(trace, costs)) << "num_ranks " << trace.rank_count()
       << "\n";
    std::string text;
    for (Rank r = 0; r < trace.rank_count(); ++r) {
      text = fmt::format("rank {} {{\n", r);
      GoalRank writer(trace, r, platform, options, tags, text, result.left_out);
      walk_program(trace, r, costs, writer, result.left_out);
      text += "}\n";
      os << text;
      result.operations += writer.operations;
      result.dependencies += writer.dependencies;
    }
  });
  return result;
}

}  // namespace wisp
