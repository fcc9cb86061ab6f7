// Generator command lines. See command_line.hpp.
#include "wisp/generate/command_line.hpp"

#include <CLI/CLI.hpp>
#include <memory>
#include <sstream>

#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/trace/rank_set.hpp"

namespace wisp::gen {

namespace {

// CLI11 2.1 turns "-5" into 2^64 - 5 for unsigned 64-bit options: refuse the minus sign first.
const CLI::Validator kNotNegative(
    [](std::string& v) -> std::string {
      return !v.empty() && v.front() == '-' ? "must not be negative (got " + v + ")" : "";
    },
    "NON-NEGATIVE");

void add_common(CLI::App* cmd, CommonOptions& c) {
  cmd->add_option("--seed", c.seed, "random seed (output is deterministic per seed)")
      ->check(kNotNegative)
      ->capture_default_str();
  cmd->add_option("--latency", c.model.latency, "model latency L [s]")->capture_default_str();
  cmd->add_option("--bandwidth", c.model.bandwidth, "model bandwidth B [bytes/s]")->capture_default_str();
  cmd->add_option("--overhead", c.model.overhead, "model per-MPI-call overhead o [s]")->capture_default_str();
  cmd->add_option("--eager-limit", c.model.eager_limit, "largest eager message [bytes]")
      ->check(kNotNegative)
      ->capture_default_str();
  cmd->add_option("--init-time", c.model.init_time, "MPI_Init cost after the last rank [s]")->capture_default_str();
  cmd->add_option("--launch-jitter", c.launch_jitter, "rank launch times spread [s]")->capture_default_str();
  cmd->add_flag("--cycle-counter", c.cycle_counter,
                "add a counter sample (cycles of a 2 GHz clock) before every enter and leave, as Score-P records "
                "PAPI counters");
}

std::vector<std::uint32_t> parse_dims(const std::string& text) {
  std::vector<std::uint32_t> dims;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, 'x')) {
    try {
      std::size_t used = 0;
      const unsigned long v = std::stoul(part, &used);
      if (used != part.size() || v == 0) throw std::invalid_argument(part);
      dims.push_back(static_cast<std::uint32_t>(v));
    } catch (const std::exception&) {
      throw Error("generate halo: --dims '" + text + "' is not like 4x4 or 4x4x2");
    }
  }
  return dims;
}

template <typename Options>
CLI::App* kind(CLI::App* parent, const char* name, const char* help, std::function<void(CLI::App*, Options&)> options,
               std::function<Trace(Options&)> make, const GeneratedSink& sink) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = parent->add_subcommand(name, help);
  add_common(cmd, *o);
  options(cmd, *o);
  cmd->callback([o, cmd, make, sink] {
    Trace trace = make(*o);
    if (o->cycle_counter) add_cycle_counter(trace);
    sink(std::move(trace), *cmd);
  });
  return cmd;
}

// One sub-command per generator: its options and how they make the generator's options.
void add_imbalance(CLI::App* generate, const GeneratedSink& sink) {
  kind<ImbalanceOptions>(
      generate, "imbalance", "work() + barrier, balanced/static/dynamic/mixed imbalance (paper 000)",
      [](CLI::App* c, ImbalanceOptions& o) {
        c->add_option("--ranks", o.ranks, "ranks")->capture_default_str();
        c->add_option("--iterations", o.iterations, "loop iterations")->capture_default_str();
        c->add_option("--mode", o.mode, "balanced | static | dynamic | mixed")->capture_default_str();
        c->add_option("--percent", o.percent, "runtime added by the imbalance [%]")->capture_default_str();
        c->add_option("--work", o.work, "work() per iteration when balanced [s]")->capture_default_str();
      },
      [](ImbalanceOptions& o) { return generate_imbalance(o); }, sink);
}

void add_wavefront(CLI::App* generate, const GeneratedSink& sink) {
  auto wave_extra = std::make_shared<std::string>();
  kind<WavefrontOptions>(
      generate, "wavefront", "Sweep3D-like sweeps from the four corners of a px x py grid",
      [wave_extra](CLI::App* c, WavefrontOptions& o) {
        c->add_option("--px", o.px, "grid columns")->capture_default_str();
        c->add_option("--py", o.py, "grid rows")->capture_default_str();
        c->add_option("--iterations", o.iterations, "iterations (4 sweeps each)")->capture_default_str();
        c->add_option("--blocks", o.blocks, "pipelined blocks per sweep")->capture_default_str();
        c->add_option("--work", o.work, "sweep() per block [s]")->capture_default_str();
        c->add_option("--bytes", o.bytes, "bytes per message")->check(kNotNegative)->capture_default_str();
        c->add_option("--extra-ranks", *wave_extra, "ranks with extra work, e.g. 0,4,8,12");
        c->add_option("--extra", o.extra, "extra work fraction on those ranks")->capture_default_str();
      },
      [wave_extra](WavefrontOptions& o) {
        if (!wave_extra->empty()) o.extra_ranks = parse_rank_set(*wave_extra, o.px * o.py);
        return generate_wavefront(o);
      },
      sink);
}

void add_mpmd(CLI::App* generate, const GeneratedSink& sink) {
  kind<MpmdOptions>(
      generate, "mpmd", "particle and mesh partitions coupled every step (paper 000 §IV-D)",
      [](CLI::App* c, MpmdOptions& o) {
        c->add_option("--particle-ranks", o.particle_ranks, "ranks of the particle partition")->capture_default_str();
        c->add_option("--mesh-ranks", o.mesh_ranks, "ranks of the mesh partition")->capture_default_str();
        c->add_option("--steps", o.steps, "coupled steps")->capture_default_str();
        c->add_option("--particle-work", o.particle_work, "particle work per step [core-s]")->capture_default_str();
        c->add_option("--mesh-work", o.mesh_work, "mesh work per step [core-s]")->capture_default_str();
        c->add_option("--shift", o.shift, "fraction of the mesh work moved to particles")->capture_default_str();
        c->add_option("--bytes", o.bytes, "bytes per coupling message")->check(kNotNegative)->capture_default_str();
      },
      [](MpmdOptions& o) { return generate_mpmd(o); }, sink);
}

void add_halo(CLI::App* generate, const GeneratedSink& sink) {
  auto halo_dims = std::make_shared<std::string>("4x4");
  auto halo_hot = std::make_shared<std::string>();
  kind<HaloOptions>(
      generate, "halo", "Isend/Irecv/Waitall halo exchange + Allreduce on a periodic grid",
      [halo_dims, halo_hot](CLI::App* c, HaloOptions& o) {
        c->add_option("--dims", *halo_dims, "grid, e.g. 4x4 or 4x4x4")->capture_default_str();
        c->add_option("--steps", o.steps, "time steps")->capture_default_str();
        c->add_option("--work", o.work, "compute() per step [s]")->capture_default_str();
        c->add_option("--boundary-work", o.boundary_work, "boundary() per step [s]")->capture_default_str();
        c->add_option("--bytes", o.bytes, "bytes per halo message")->check(kNotNegative)->capture_default_str();
        c->add_option("--overload-ranks", *halo_hot, "overloaded ranks, e.g. 0-3");
        c->add_option("--overload", o.overload, "extra work fraction on them")->capture_default_str();
        c->add_option("--overload-region", o.overload_region, "compute | boundary")->capture_default_str();
        c->add_flag("--balanced", o.balanced, "spread the overload evenly over all ranks");
        c->add_flag("--cxx-names", o.cxx_names, "demangled C++ signatures as region names");
      },
      [halo_dims, halo_hot](HaloOptions& o) {
        o.dims = parse_dims(*halo_dims);
        std::uint32_t P = 1;
        for (auto d : o.dims) P *= d;
        if (!halo_hot->empty()) o.overload_ranks = parse_rank_set(*halo_hot, P);
        return generate_halo(o);
      },
      sink);
}

void add_phases(CLI::App* generate, const GeneratedSink& sink) {
  kind<PhasesOptions>(
      generate, "phases", "balanced, imbalanced, serialised and transfer-bound phases (paper 003)",
      [](CLI::App* c, PhasesOptions& o) {
        c->add_option("--ranks", o.ranks, "ranks")->capture_default_str();
        c->add_option("--iterations", o.iterations, "iterations per phase")->capture_default_str();
        c->add_option("--work", o.work, "relax() per iteration [s]")->capture_default_str();
        c->add_option("--imbalance", o.imbalance, "extra work of the upper half in phase 2")->capture_default_str();
        c->add_option("--small-bytes", o.small_bytes, "exchange size in phases 1-2")
            ->check(kNotNegative)
            ->capture_default_str();
        c->add_option("--big-bytes", o.big_bytes, "exchange size in phase 4")
            ->check(kNotNegative)
            ->capture_default_str();
      },
      [](PhasesOptions& o) { return generate_phases(o); }, sink);
}

void add_hybrid(CLI::App* generate, const GeneratedSink& sink) {
  kind<HybridOptions>(
      generate, "hybrid", "MPI+OpenMP: a parallel region with a thread imbalance, then MPI_Allreduce",
      [](CLI::App* c, HybridOptions& o) {
        c->add_option("--ranks", o.ranks, "ranks")->capture_default_str();
        c->add_option("--threads", o.threads, "threads per rank, the master included")->capture_default_str();
        c->add_option("--iterations", o.iterations, "iterations")->capture_default_str();
        c->add_option("--work", o.work, "work per thread and iteration [s]")->capture_default_str();
        c->add_option("--thread-imbalance", o.thread_imbalance, "extra work of each rank's last thread")
            ->capture_default_str();
        c->add_option("--rank-imbalance", o.rank_imbalance, "extra work of rank 0's threads")->capture_default_str();
        c->add_flag("--balanced-threads", o.balanced_threads, "every thread works its team's mean");
      },
      [](HybridOptions& o) { return generate_hybrid(o); }, sink);
}

}  // namespace

void add_generator_commands(CLI::App& parent, const GeneratedSink& sink) {
  add_imbalance(&parent, sink);
  add_wavefront(&parent, sink);
  add_mpmd(&parent, sink);
  add_halo(&parent, sink);
  add_phases(&parent, sink);
  add_hybrid(&parent, sink);
}

Trace generate_from_command_line(const std::string& command_line) {
  CLI::App app{"generate"};
  app.require_subcommand(1);
  Trace result;
  bool made = false;
  add_generator_commands(app, [&](Trace t, const CLI::App&) {
    result = std::move(t);
    made = true;
  });
  try {
    app.parse(command_line, false);
  } catch (const CLI::ParseError& e) {
    throw Error("generate " + command_line + ": " + e.what());
  }
  if (!made) throw Error("generate " + command_line + ": no generator ran");
  return result;
}

}  // namespace wisp::gen
