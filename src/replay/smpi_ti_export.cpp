// SimGrid time-independent traces (SMPI's replay format, SimGrid 3.32): one file per rank, an
// index, and the smpirun command that reproduces wisp's model. See export.hpp and README.md.
// Collectives on MPI_COMM_WORLD become SMPI's collective actions (SMPI's algorithm closest to the
// replay's is selected); the format names no communicator, so collectives on other communicators
// (and every collective with `collectives_as_messages`) are written as the messages of the
// replay's algorithm.
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <set>

#include "collective_schedule.hpp"
#include "mpi_program.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/replay/export.hpp"

namespace wisp {

namespace replay_impl {
namespace {

// Tags: SMPI matches by (source, tag) on one world communicator, so every (communicator, tag) of
// the trace gets its own tag, and each communicator's collective messages one more.
// Also which communicators SMPI's collective actions can stand for (all ranks in rank order: the
// world), decided once for every rank's writer.
struct TiTags {
  std::map<std::pair<CommId, std::int32_t>, int> p2p;
  int first_collective = 0;
  std::vector<char> world;  // by communicator
  int collective(CommId comm) const { return first_collective + static_cast<int>(comm); }
};

bool is_world(const Communicator& c, Rank ranks) {
  if (c.self || c.members.size() != ranks) return false;
  for (Rank r = 0; r < c.members.size(); ++r)
    if (c.members[r] != r) return false;
  return true;
}

TiTags ti_tags(const Trace& trace) {
  TiTags t;
  for (const RankTrace& rt : trace.ranks)
    for (const P2P& p : rt.p2p) t.p2p.emplace(std::make_pair(p.comm, p.tag), 0);
  int next = 0;
  for (auto& [key, tag] : t.p2p) tag = next++;
  t.first_collective = next;
  for (const Communicator& c : trace.defs.comms) t.world.push_back(is_world(c, trace.rank_count()) ? 1 : 0);
  return t;
}

// The SMPI collective algorithm closest to the replay's (--cfg=smpi/<key>:<name>), or "" if none.
std::pair<const char*, const char*> smpi_algorithm(CollectiveFamily f, CollectiveAlgorithm a) {
  using A = CollectiveAlgorithm;
  switch (f) {
    case CollectiveFamily::Barrier:
      return {"barrier", a == A::Dissemination ? "ompi_bruck" : ""};
    case CollectiveFamily::Bcast:
      return {"bcast", a == A::Binomial ? "binomial_tree" : a == A::Linear ? "flattree" : ""};
    case CollectiveFamily::Reduce:
      return {"reduce", a == A::Binomial ? "binomial" : a == A::Linear ? "flat_tree" : ""};
    case CollectiveFamily::Allreduce:
      return {"allreduce", a == A::RecursiveDoubling ? "rdb" : a == A::Binomial ? "redbcast" : ""};
    case CollectiveFamily::Gather:
      return {"gather", a == A::Binomial ? "ompi_binomial" : a == A::Linear ? "ompi_basic_linear" : ""};
    case CollectiveFamily::Scatter:
      return {"scatter", a == A::Binomial ? "ompi_binomial" : a == A::Linear ? "ompi_basic_linear" : ""};
    case CollectiveFamily::Allgather:
      return {"allgather", a == A::Ring ? "ring" : a == A::RecursiveDoubling ? "rdb" : ""};
    case CollectiveFamily::Alltoall:
      // SMPI's "pair" exchanges with rank ^ i (powers of two only); its "ring" takes wisp's partners
      // (rank ± i) plus a message to itself first.
      return {"alltoall", a == A::Pairwise ? "ring" : a == A::Linear ? "basic_linear" : ""};
    case CollectiveFamily::ReduceScatter:
      return {"reduce_scatter", a == A::Ring ? "ompi_ring" : ""};
    case CollectiveFamily::Scan:
      return {"scan", ""};
  }
  return {"", ""};
}

class TiRank final : public ProgramWriter, public CollectiveMessenger {
 public:
  TiRank(const Trace& trace, Rank rank, const ExportPlatform& platform, const ExportOptions& options,
         const TiTags& tags, std::ostream& out, ExportLeftOut& left)
      : trace_(trace), rank_(rank), platform_(platform), options_(options), tags_(tags), out_(out), left_(left) {
    line("init");  // SMPI's replay needs it first (it sets the default datatype: MPI_BYTE)
  }

  std::uint64_t lines = 0;

  void compute(double seconds) override { line(fmt::format("compute {}", seconds * platform_.reference_speed)); }
  void idle(double seconds) override { sleep(seconds); }

  void call(const ProgramCall& c) override {
    sleep(c.overhead);
    if (c.init) sleep(c.init_wait);
    std::size_t p2p = 0, blocking = 0;
    for (const ProgramOperation& op : c.operations) {
      p2p += op.kind != ProgramOperation::Kind::Collective;
      blocking += op.kind != ProgramOperation::Kind::Collective && op.blocking;
    }
    const bool single = p2p == 1 && blocking == 1 && c.completed.empty();
    std::vector<std::uint32_t> to_wait;
    for (const ProgramOperation& op : c.operations) {
      if (op.kind == ProgramOperation::Kind::Collective) {
        collective(collective_call(trace_.ranks[rank_].collectives[op.record]));
        continue;
      }
      const P2P& p = trace_.ranks[rank_].p2p[op.record];
      const bool send = op.kind == ProgramOperation::Kind::Send;
      left_.synchronous_sends += op.synchronous && p.bytes <= platform_.mpi.eager_threshold;
      const char* verb = send ? (single ? "send" : "isend") : (single ? "recv" : "irecv");
      line(fmt::format("{} {} {} {}", verb, p.peer, tag_of(p), wire_bytes(platform_, send ? p.peer : rank_, p.bytes)));
      if (!single && op.blocking) to_wait.push_back(op.record);
      if (!single && !op.blocking) open_.insert(op.record);
    }
    if (c.finalize_barrier)
      collective(CollectiveCall{CollectiveOp::DestroyHandle, trace_.defs.world, kNone, 0, 0, 0, kNone});
    complete(c.completed, to_wait);
    sleep(c.cost);
    if (c.finalize) line("finalize");
  }

  // CollectiveMessenger: a collective as the replay's messages.
  void post_send(std::uint32_t to, std::uint64_t bytes) override {
    const Rank peer = comm_->members[to];
    line(fmt::format("isend {} {} {}", peer, tags_.collective(comm_id_), wire_bytes(platform_, peer, bytes)));
    batch_.push_back({rank_, peer});
  }
  void post_receive(std::uint32_t from, std::uint64_t bytes) override {
    const Rank peer = comm_->members[from];
    line(fmt::format("irecv {} {} {}", peer, tags_.collective(comm_id_), wire_bytes(platform_, rank_, bytes)));
    batch_.push_back({peer, rank_});
  }
  void wait() override {
    for (const auto& [src, dst] : batch_) line(fmt::format("wait {} {} {}", src, dst, tags_.collective(comm_id_)));
    batch_.clear();
  }
  void receive(std::uint32_t from, std::uint64_t bytes) override {
    line(fmt::format("recv {} {} {}", comm_->members[from], tags_.collective(comm_id_),
                     wire_bytes(platform_, rank_, bytes)));
    wait();
  }

 private:
  int tag_of(const P2P& p) const { return tags_.p2p.at({p.comm, p.tag}); }

  // A call that completes every open request (and posted no blocking ones) is SMPI's `waitall`;
  // otherwise one `wait` per request, found by its (source, destination, tag).
  void complete(const std::vector<std::uint32_t>& completed, const std::vector<std::uint32_t>& blocking) {
    std::size_t open = 0;
    for (std::uint32_t record : completed) open += open_.count(record);
    const bool all = !completed.empty() && blocking.empty() && open == completed.size() && open == open_.size();
    for (std::uint32_t record : completed) open_.erase(record);
    if (all) return line("waitall");
    for (std::uint32_t record : completed) wait_for(record);
    for (std::uint32_t record : blocking) wait_for(record);
  }

  void wait_for(std::uint32_t record) {
    const P2P& p = trace_.ranks[rank_].p2p[record];
    const bool send = p.is_send();
    line(fmt::format("wait {} {} {}", send ? rank_ : p.peer, send ? p.peer : rank_, tag_of(p)));
  }

  void sleep(double seconds) {
    if (seconds > 0) line(fmt::format("sleep {}", seconds));
  }

  // On the world communicator (members in rank order) SMPI's own action, else the messages.
  void collective(const CollectiveCall& call) {
    const CollectiveAlgorithm a = schedule_algorithm(options_.algorithms, call.op, left_);
    comm_ = &trace_.defs.comms[call.comm];
    comm_id_ = call.comm;
    if (comm_->size() <= 1) return;
    const std::vector<std::uint32_t>& local = local_of(call.comm);
    if (!options_.collectives_as_messages && tags_.world[call.comm]) {
      const std::string action = collective_action(call, collective_shape(trace_, call, local, rank_));
      if (!action.empty()) return line(action);
    }
    send_collective_messages(trace_, call, local, rank_, a, *this);
  }

  // SMPI's action for the operation ("" for the v-variants, written as messages).
  static std::string collective_action(const CollectiveCall& call, const CollectiveShape& s) {
    const std::uint64_t b = s.buffer;
    switch (call.op) {
      case CollectiveOp::Barrier:
      case CollectiveOp::CreateHandle:
      case CollectiveOp::DestroyHandle:
        return "barrier";
      case CollectiveOp::Bcast:
        return fmt::format("bcast {} {}", b, s.root);
      case CollectiveOp::Reduce:
        return fmt::format("reduce {} 0 {}", b, s.root);
      case CollectiveOp::Allreduce:
        return fmt::format("allreduce {} 0", b);
      case CollectiveOp::Gather:
        return fmt::format("gather {} {} {}", b, b, s.root);
      case CollectiveOp::Scatter:
        return fmt::format("scatter {} {} {}", b, b, s.root);
      case CollectiveOp::Allgather:
        return fmt::format("allgather {} {}", b, b);
      case CollectiveOp::Alltoall:
        return fmt::format("alltoall {} {}", b, b);
      case CollectiveOp::Scan:
        return fmt::format("scan {} 0", b);
      case CollectiveOp::Exscan:
        return fmt::format("exscan {} 0", b);
      default:
        return "";
    }
  }

  const std::vector<std::uint32_t>& local_of(CommId comm) {
    auto& local = local_[comm];
    if (local.empty()) local = local_ranks(trace_, comm);
    return local;
  }

  void line(const std::string& text) {
    out_ << rank_ << ' ' << text << '\n';
    ++lines;
  }

  const Trace& trace_;
  Rank rank_;
  const ExportPlatform& platform_;
  const ExportOptions& options_;
  const TiTags& tags_;
  std::ostream& out_;
  ExportLeftOut& left_;
  const Communicator* comm_ = nullptr;
  CommId comm_id_ = kNone;
  std::vector<std::pair<Rank, Rank>> batch_;  // (source, destination) of the posted messages
  std::map<CommId, std::vector<std::uint32_t>> local_;
  std::set<std::uint32_t> open_;  // requests (p2p records) posted and not yet completed
};

// The smpirun command: SMPI's network and MPI costs reduced to wisp's model (CM02 without
// corrections, no envelope-free option exists: SMPI adds 16 bytes to every message), eager
// messages sent at once (async-small-thresh), rendezvous above the eager threshold.
std::string smpirun_script(const Trace& trace, const ExportPlatform& p, const ExportOptions& o,
                           const std::string& platform, const std::vector<std::string>& left) {
  std::string s = fmt::format(
      "#!/bin/sh\n"
      "# SimGrid time-independent trace written by wisp: {} ranks, one file per rank (index.txt).\n"
      "# compute: flops at {:.9g} flop/s per traced second (the replay's reference speed); sleep: seconds of\n"
      "# per-call overhead, typical call costs, MPI_Init's wait and launch offsets; sizes in bytes (MPI_BYTE), those\n"
      "# of point-to-point and expanded collective messages with the platform's size factors applied.\n",
      trace.rank_count(), p.reference_speed);
  for (const std::string& l : left) s += "# left out: " + l + "\n";
  const std::uint64_t eager = p.mpi.eager_threshold + 1;  // SMPI: size < threshold
  s += fmt::format(
      "cd \"$(dirname \"$0\")\" || exit 1\n"
      "exec smpirun -np {} -platform {} -hostfile hostfile.txt -replay index.txt \\\n"
      "  --cfg=network/model:CM02 --cfg=network/latency-factor:1 --cfg=network/bandwidth-factor:1 \\\n"
      "  --cfg=network/weight-S:0 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 \\\n"
      "  --cfg=smpi/os:0:0:0:0:0 --cfg=smpi/or:0:0:0:0:0 --cfg=smpi/ois:0:0:0:0:0 \\\n"
      "  --cfg=smpi/test:0 --cfg=smpi/iprobe:1e-9 --cfg=smpi/wtime:0 --cfg=smpi/host-speed:1Gf \\\n"
      "  --cfg=smpi/send-is-detached-thresh:{} --cfg=smpi/async-small-thresh:{}",
      trace.rank_count(), platform, eager, eager);
  std::string unmatched;
  for (int f = 0; f < kCollectiveFamilyCount; ++f) {
    const auto family = static_cast<CollectiveFamily>(f);
    CollectiveAlgorithm a = o.algorithms.by_family[f];
    if (a == CollectiveAlgorithm::Analytic) a = CollectiveAlgorithms{}.by_family[f];
    const auto [key, name] = smpi_algorithm(family, a);
    if (*name)
      s += fmt::format(" \\\n  --cfg=smpi/{}:{}", key, name);
    else
      unmatched += fmt::format("{}{}={}", unmatched.empty() ? "" : ", ", to_string(family), to_string(a));
  }
  s += " \\\n  \"$@\"\n";
  if (!unmatched.empty())
    s += "# SMPI has no equivalent of wisp's " + unmatched + " (SMPI's default runs on MPI_COMM_WORLD)\n";
  return s;
}

std::string hostfile(const ExportPlatform& p, Rank ranks) {
  std::string s;
  for (Rank r = 0; r < ranks; ++r) s += (r < p.rank_hosts.size() ? p.rank_hosts[r] : fmt::format("node-{}", r)) + "\n";
  return s;
}

}  // namespace
}  // namespace replay_impl

ExportResult export_smpi_ti(const Trace& trace, const ExportPlatform& platform, const ExportOptions& options,
                            const std::filesystem::path& dir, bool force) {
  using namespace replay_impl;
  ExportResult result{"smpi-ti", dir, 0, 0, {}};
  count_beyond_mpi(trace, result.left_out);
  const ProgramCosts costs = program_costs(trace, platform.mpi, platform.rank_hosts);
  const TiTags tags = ti_tags(trace);
  AtomicDirectory out(dir, force);
  std::string index;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const std::string name = fmt::format("rank-{}.txt", r);
    index += name + "\n";
    std::ofstream file(out.staging() / name);
    TiRank writer(trace, r, platform, options, tags, file, result.left_out);
    walk_program(trace, r, costs, writer, result.left_out);
    file.flush();
    if (!file) throw Error(fmt::format("{}: cannot write {}", dir.string(), name));
    result.operations += writer.lines;
  }
  write_file_atomically(out.staging() / "index.txt", index);
  write_file_atomically(out.staging() / "hostfile.txt", hostfile(platform, trace.rank_count()));
  std::string platform_path = "platform.xml";
  if (platform.platform_file.empty())
    write_file_atomically(out.staging() / platform_path, platform.platform_xml);
  else
    platform_path = std::filesystem::absolute(platform.platform_file).string();
  write_file_atomically(out.staging() / "smpirun.sh",
                        smpirun_script(trace, platform, options, platform_path, result.left_out.names()));
  std::filesystem::permissions(out.staging() / "smpirun.sh", std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  out.commit();
  return result;
}

}  // namespace wisp
