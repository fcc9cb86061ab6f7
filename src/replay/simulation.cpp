// One SimGrid simulation of a trace: engine and platform set-up, the static routing of every
// point-to-point record to its channel, MPI_Init costs, the actors, progress and deadlock report.
#include "simulation.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <xbt/config.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>

#include "call_shape.hpp"
#include "init_timing.hpp"
#include "rank_actor.hpp"
#include "sg_platform.hpp"
#include "world.hpp"

namespace wisp::replay_impl {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct ChannelKey {
  CommId comm;
  Rank source, destination;
  std::int32_t tag;
  bool operator==(const ChannelKey&) const = default;
};
struct ChannelKeyHash {
  std::size_t operator()(const ChannelKey& k) const {
    std::uint64_t h = (static_cast<std::uint64_t>(k.source) << 32) ^ k.destination;
    h ^= (static_cast<std::uint64_t>(k.comm) << 48) ^ (static_cast<std::uint32_t>(k.tag) * 0x9E3779B97F4A7C15ull);
    h ^= h >> 31;
    return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull);
  }
};

bool is_send(EventKind k) { return k == EventKind::MpiSend || k == EventKind::MpiIsend; }
bool is_receive(EventKind k) { return k == EventKind::MpiRecv || k == EventKind::MpiIrecv; }

// Per rank and p2p record: whether it is a synchronous send (MPI_Ssend, MPI_Issend), which
// always uses the rendezvous protocol.
std::vector<std::vector<char>> synchronous_sends(const Trace& trace) {
  std::vector<std::vector<char>> out(trace.rank_count());
  const auto& defs = trace.defs;
  const bool any = std::any_of(defs.regions.begin(), defs.regions.end(), [](const Region& r) {
    return r.mpi == MpiFunction::Ssend || r.mpi == MpiFunction::Issend;
  });
  if (!any) return out;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    out[r].assign(rt.p2p.size(), 0);
    for (const CallSpan& call : rt.mpi_calls) {
      const MpiFunction f = defs.region_of(rt.events[call.enter].callpath()).mpi;
      if (f != MpiFunction::Ssend && f != MpiFunction::Issend) continue;
      for (EventIndex k = call.enter; k <= call.leave; ++k)
        if (is_send(rt.events[k].kind)) out[r][rt.events[k].p2p()] = 1;
    }
  }
  return out;
}

// Every point-to-point record gets its channel (comm, source, destination, tag) and protocol.
// The protocol is the send side's (size and synchronous mode), so both sides agree.
void route_messages(World& w) {
  const Trace& trace = w.trace;
  const auto sync = synchronous_sends(trace);
  auto synchronous = [&](Rank r, std::uint32_t rec) { return !sync[r].empty() && sync[r][rec]; };
  std::unordered_map<ChannelKey, std::uint32_t, ChannelKeyHash> index;
  w.p2p_route.resize(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    auto& route = w.p2p_route[r];
    route.assign(rt.p2p.size(), kNone);
    for (std::uint32_t i = 0; i < rt.p2p.size(); ++i) {
      const P2P& p = rt.p2p[i];
      if (p.peer == kNone || p.peer >= trace.rank_count() || p.comm == kNone || p.event == kNone) continue;
      const EventKind kind = rt.events[p.event].kind;
      if (!is_send(kind) && !is_receive(kind)) continue;
      const bool send = is_send(kind);
      const ChannelKey key{p.comm, send ? r : p.peer, send ? p.peer : r, p.tag};
      const auto [it, inserted] = index.try_emplace(key, static_cast<std::uint32_t>(w.channels.size()));
      if (inserted) w.channels.push_back(Channel{key.source, key.destination});
      bool eager;
      if (p.message != kNone) {
        const Message& m = trace.messages[p.message];
        eager = trace.send_of(m).bytes <= w.eager_threshold_between(key.source, key.destination) &&
                !synchronous(m.sender, m.send);
      } else {
        eager = p.bytes <= w.eager_threshold_between(key.source, key.destination) && !(send && synchronous(r, i));
      }
      route[i] = it->second << 1 | (eager ? 1u : 0u);
    }
  }
}

// MPI_Init: every rank leaves at max(ready) + its cost (init_timing.hpp), the traced one unless given.
void init_costs(World& w, const ReplayOptions& options) {
  const InitTiming t = init_timing(w.trace, w.prices.overhead_of_region);
  w.init_ranks = t.ranks;
  w.init_cost = t.traced_cost;
  if (options.init_time)
    for (Rank r = 0; r < w.trace.rank_count(); ++r) w.init_cost[r] = *options.init_time;
}

std::string describe_p2p(const Trace& t, Rank r, std::uint32_t rec, bool receive) {
  const P2P& p = t.ranks[r].p2p[rec];
  const std::string comm = p.comm < t.defs.comms.size() ? t.defs.comms[p.comm].name : "?";
  if (receive) return fmt::format("message from rank {} tag {} on {} ({} bytes)", p.peer, p.tag, comm, p.bytes);
  return fmt::format("rank {} to receive a message tag {} on {} ({} bytes)", p.peer, p.tag, comm, p.bytes);
}

BlockedRank describe_blocked(const Trace& t, Rank r, EventIndex first) {
  BlockedRank b{r, first, "?", "?"};
  const RankTrace& rt = t.ranks[r];
  if (first == kNone || first >= rt.events.size()) return b;
  EventIndex last = first;
  if (rt.events[first].kind == EventKind::Enter) {
    b.call = t.defs.region_of(rt.events[first].callpath()).name;
    const auto it = std::lower_bound(rt.mpi_calls.begin(), rt.mpi_calls.end(), first,
                                     [](const CallSpan& c, EventIndex i) { return c.enter < i; });
    if (it != rt.mpi_calls.end() && it->enter == first) last = it->leave;
  } else {
    b.call = std::string(to_string(rt.events[first].kind));
  }
  const MpiFunction f =
      rt.events[first].kind == EventKind::Enter ? t.defs.region_of(rt.events[first].callpath()).mpi : MpiFunction::None;
  if (f == MpiFunction::Init || f == MpiFunction::InitThread) {
    b.waiting_for = "every rank to enter MPI_Init";
    return b;
  }
  std::vector<std::string> parts;
  for (EventIndex k = first; k <= last; ++k) {
    const Event& e = rt.events[k];
    switch (e.kind) {
      case EventKind::MpiRecv:
      case EventKind::MpiIrecv:
        parts.push_back(describe_p2p(t, r, e.p2p(), true));
        break;
      case EventKind::MpiSend:
        parts.push_back(describe_p2p(t, r, e.p2p(), false));
        break;
      case EventKind::MpiIsendComplete:
        parts.push_back(describe_p2p(t, r, e.p2p(), false));
        break;
      case EventKind::MpiCollectiveEnd: {
        const CollectiveRecord& c = rt.collectives[e.collective()];
        const std::string comm = c.comm < t.defs.comms.size() ? t.defs.comms[c.comm].name : "?";
        parts.push_back(fmt::format("the other members of {} ({} on {}, {} ranks)", comm, to_string(c.op), comm,
                                    c.comm < t.defs.comms.size() ? t.defs.comms[c.comm].size() : 0));
        break;
      }
      default:
        break;
    }
  }
  if (f == MpiFunction::Finalize && parts.empty()) parts.push_back("every rank to reach MPI_Finalize");
  if (parts.empty()) return b;
  b.waiting_for = parts[0];
  if (parts.size() > 1) b.waiting_for += fmt::format(" (and {} more requests)", parts.size() - 1);
  return b;
}

void setup_hosts(World& w, const std::vector<sg::Host*>& hosts, const ReplayOptions& options) {
  std::vector<sg::Host*> order = hosts;
  if (!options.hosts.empty()) {
    order.clear();
    for (const std::string& name : options.hosts) {
      sg::Host* h = sg::Host::by_name_or_null(name);
      if (!h) throw Error(fmt::format("replay: host '{}' of the rank mapping is not in the platform", name));
      order.push_back(h);
    }
  }
  w.host_of_rank.resize(w.trace.rank_count());
  if (options.hosts.empty()) {
    std::vector<std::uint32_t> cores;
    for (const sg::Host* h : order) cores.push_back(static_cast<std::uint32_t>(h->get_core_count()));
    const std::vector<std::size_t> host = place_trace(w.trace, options.placement, cores);
    for (Rank r = 0; r < w.trace.rank_count(); ++r) w.host_of_rank[r] = order[host[r]];
  } else {
    for (Rank r = 0; r < w.trace.rank_count(); ++r) w.host_of_rank[r] = order[r % order.size()];
  }
  std::unordered_map<const sg::Host*, int> ranks_on;
  for (const sg::Host* h : w.host_of_rank) ++ranks_on[h];
  w.exclusive_host.resize(w.trace.rank_count());
  std::unordered_map<const sg::Host*, Rank> first_on;
  for (Rank r = 0; r < w.trace.rank_count(); ++r) {
    const sg::Host* h = w.host_of_rank[r];
    w.exclusive_host[r] = ranks_on[h] <= h->get_core_count();
    if (w.exclusive_host[r]) continue;
    ++w.stats.ranks_sharing_cores;
    const auto [first, inserted] = first_on.emplace(h, r);
    if (!inserted && w.stats.sharing_example.empty())
      w.stats.sharing_example = fmt::format("ranks {} and {} on {} ({} core{})", first->second, r, h->get_name(),
                                            h->get_core_count(), h->get_core_count() == 1 ? "" : "s");
  }
}

// Per receiving rank, the factors of the host `host_of(r)` names.
std::vector<std::vector<double>> size_factors_by_rank(const World& w, const Platform& p,
                                                      const std::function<std::string(Rank)>& host_of) {
  std::vector<std::vector<double>> out;
  if (p.size_factors.empty()) return out;
  out.resize(w.trace.rank_count());
  for (Rank r = 0; r < w.trace.rank_count(); ++r) {
    const auto it = p.size_factors.find(host_of(r));
    if (it == p.size_factors.end()) continue;
    out[r].assign(65, 1.0);
    for (const auto& [k, f] : it->second) out[r][k] = f;
  }
  return out;
}

void setup_size_factors(World& w, const Platform& p) {
  w.size_factor = size_factors_by_rank(w, p, [&](Rank r) { return w.host_of_rank[r]->get_name(); });
}

// The host of the calibration inside hosts (Platform::intra_calibration) whose costs rank r takes:
// node-(r mod H), H its hosts.
std::string inside_host(const Platform& calibration, Rank r) {
  return fmt::format("node-{}", r % std::max<std::uint32_t>(calibration.hosts, 1));
}

// The costs inside hosts from their calibration (Platform::intra_calibration); rank r has the size
// factors of its inside_host.
void setup_inside(World& w, const Platform& p, const ReplayOptions& options) {
  if (!p.intra_calibration) return;
  const Platform& c = *p.intra_calibration;
  World::Inside in;
  in.prices = call_prices(w.trace, c.mpi);
  in.eager_threshold = options.eager_threshold.value_or(c.mpi.eager_threshold);
  in.size_factor = size_factors_by_rank(w, c, [&](Rank r) { return inside_host(c, r); });
  w.inside = std::move(in);
}

// Model-only replays: every call gets its class's typical cost from the platform, if it has any; a
// call whose messages stay on its host, from the calibration inside hosts (rank r: its inside_host's).
void typical_costs(World& w, const Platform& platform) {
  const Platform* inside = w.inside ? platform.intra_calibration.get() : nullptr;
  if (platform.mpi.call_costs.empty() && !(inside && !inside->mpi.call_costs.empty())) return;
  std::vector<std::string> hosts;
  for (const sg::Host* h : w.host_of_rank) hosts.push_back(h->get_name());
  w.typical = typical_call_costs(w.trace, platform.mpi, hosts);
  if (inside) {
    std::vector<std::string> inside_hosts;
    for (Rank r = 0; r < w.trace.rank_count(); ++r) inside_hosts.push_back(inside_host(*inside, r));
    const auto on_host = typical_call_costs(w.trace, inside->mpi, inside_hosts);
    for (Rank r = 0; r < w.trace.rank_count(); ++r) {
      const RankTrace& rt = w.trace.ranks[r];
      for (std::size_t i = 0; i < rt.mpi_calls.size(); ++i) {
        const CallShape c = shape_of(rt, w.trace.defs, rt.mpi_calls[i].enter, rt.mpi_calls[i].leave);
        if (!c.init &&
            w.stays_on_host(r, rt.mpi_calls[i].enter, rt.mpi_calls[i].leave, c.finalize && !c.has_collective))
          w.typical[r][i] = on_host[r][i];
      }
    }
  }
  w.given_residuals = &w.typical;
}

void setup_residuals(World& w, const Platform& platform, const ReplayOptions& options) {
  const Trace& trace = w.trace;
  if (options.zero_communication) return;
  if (options.anchor) {
    w.residuals.resize(trace.rank_count());
    w.anchored_calls.enter.resize(trace.rank_count());
    w.anchored_calls.model_end.resize(trace.rank_count());
    for (Rank r = 0; r < trace.rank_count(); ++r) {
      const std::size_t calls = trace.ranks[r].mpi_calls.size();
      w.residuals[r].assign(calls, 0.0);
      w.anchored_calls.enter[r].assign(calls, -1.0);
      w.anchored_calls.model_end[r].assign(calls, -1.0);
    }
    return;
  }
  if (!options.residuals) {
    typical_costs(w, platform);
    return;
  }
  const auto& given = options.residuals->by_rank;
  bool fits = given.size() == trace.rank_count();
  for (Rank r = 0; fits && r < trace.rank_count(); ++r) fits = given[r].size() == trace.ranks[r].mpi_calls.size();
  if (!fits) throw Error("replay: the residuals were derived for a trace with other MPI calls");
  w.given_residuals = &given;
  const auto& waits = options.residuals->waits;
  if (std::any_of(waits.begin(), waits.end(), [](const auto& v) { return !v.empty(); })) {
    if (waits.size() != trace.rank_count()) throw Error("replay: the partner waits were derived for another trace");
    w.partner_waits = &waits;
    w.calls_entered.assign(trace.rank_count(), 0);
    w.call_waiters.resize(trace.rank_count());
  }
}

// The world the rank actors share: costs, hosts, message routes and the tables they fill.
void build_world(World& w, const Platform& platform, const std::vector<sg::Host*>& hosts) {
  const Trace& trace = w.trace;
  const ReplayOptions& options = w.options;
  w.local_ranks.resize(trace.defs.comms.size());
  w.collective_table.resize(trace.defs.comms.size());
  w.eager_threshold = options.eager_threshold.value_or(platform.mpi.eager_threshold);
  const double reference = platform.reference_speed > 0 ? platform.reference_speed : hosts.front()->get_speed();
  w.flops_per_second = reference / platform.speed_factor;
  w.prices = call_prices(trace, platform.mpi);
  w.intra_overhead = platform.mpi.intra_overhead;
  init_costs(w, options);
  setup_hosts(w, hosts, options);
  setup_size_factors(w, platform);
  setup_inside(w, platform, options);
  route_messages(w);

  const Rank P = trace.rank_count();
  w.times.resize(P);
  if (w.runtime_only)
    w.ends.assign(P, 0.0);
  else
    for (Rank r = 0; r < P; ++r) w.times[r].assign(trace.ranks[r].events.size(), 0.0);
  setup_residuals(w, platform, options);
  w.in_call.assign(P, kNone);
  w.blocked_at.assign(P, 0.0);
  w.finished.assign(P, 0);
  w.delivered.resize(P);
}

// One actor per rank on its host; the returned objects must outlive the engine's run.
std::vector<std::unique_ptr<RankActor>> start_actors(World& w) {
  const Rank P = w.trace.rank_count();
  w.wakeup.reserve(P);
  std::vector<std::unique_ptr<RankActor>> ranks;
  ranks.reserve(P);
  w.actors.reserve(P);
  for (Rank r = 0; r < P; ++r) {
    w.wakeup.push_back(sg::Semaphore::create(0));
    ranks.push_back(std::make_unique<RankActor>(w, r));
    RankActor* a = ranks.back().get();
    w.actors.push_back(sg::Actor::create(fmt::format("rank-{}", r), w.host_of_rank[r], [a] { a->run(); }));
  }
  return ranks;
}

// Whether SimGrid's models give a transfer alone on FATPIPE links a time that does not depend on
// other transfers (not IB's, whose bandwidth depends on the flows at each end; not the parallel
// tasks' host model). Read after the platform file, whose <config> may set them.
bool time_invariant_models() {
  const std::string network = simgrid::config::get_value<std::string>("network/model");
  const std::string host = simgrid::config::get_value<std::string>("host/model");  // "compound" once network/model set
  return (network == "LV08" || network == "CM02" || network == "SMPI" || network == "Constant") &&
         (host == "default" || host == "compound");
}

// A deadlock ends the run with the blocked ranks and where they wait.
void watch_deadlock(World& w, SimulationOutcome& out) {
  sg::Engine::on_deadlock_cb([&w, &out] {
    out.deadlock = true;
    // or later: a rank may have waited ahead of the clock, a message without an activity arrive later
    out.deadlock_time = std::max(sg::Engine::get_clock(), w.last_arrival_in_flight());
    for (Rank r = 0; r < w.trace.rank_count(); ++r) {
      if (w.finished[r]) continue;
      out.blocked.push_back(describe_blocked(w.trace, r, w.in_call[r]));
      out.deadlock_time = std::max(out.deadlock_time, w.blocked_at[r]);
    }
  });
}

// Every options.progress_interval seconds a log line: events replayed, simulated time.
void report_progress(const World& w, Clock::time_point started) {
  if (w.options.progress_interval <= 0) return;
  const std::uint64_t total_events = w.trace.event_count();
  sg::Engine::on_time_advance_cb(
      [&w, started, total_events, last_report = Clock::now(), advances = std::uint64_t{0}](double) mutable {
        if (++advances % 1024 != 0 || seconds_since(last_report) < w.options.progress_interval) return;
        last_report = Clock::now();
        spdlog::info(
            "replay: {:.0f}% of {} events, simulated time {:.6f} s, {:.0f} s elapsed",
            100.0 * static_cast<double>(w.stats.events) / static_cast<double>(std::max<std::uint64_t>(total_events, 1)),
            total_events, sg::Engine::get_clock(), seconds_since(started));
      });
}

// What an export states about the platform (ReplayStatistics): the reference speed and one route.
void platform_facts(const World& w, const std::vector<sg::Host*>& hosts, ReplayStatistics& s) {
  s.reference_speed = w.flops_per_second;
  for (const sg::Host* h : w.host_of_rank) s.rank_hosts.push_back(h->get_name());
  sg::Host* from = w.host_of_rank.empty() ? hosts.front() : w.host_of_rank[0];
  sg::Host* to = w.host_of_rank.size() > 1 && w.host_of_rank[1] != from ? w.host_of_rank[1] : nullptr;
  for (std::size_t h = 0; !to && h < hosts.size(); ++h)
    if (hosts[h] != from) to = hosts[h];
  if (!to) return;
  std::vector<sg::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  s.route_latency = latency;
  s.route_bandwidth = std::numeric_limits<double>::infinity();
  for (const sg::Link* l : links) s.route_bandwidth = std::min(s.route_bandwidth, l->get_bandwidth());
  if (links.empty()) s.route_bandwidth = 0;
}

}  // namespace

SimulationOutcome simulate(const Trace& trace, const Platform& platform, const ReplayOptions& options,
                           bool runtime_only) {
  const auto started = Clock::now();
  char name[] = "wisp-replay";
#ifdef WISP_SANITIZED
  // The context factory is chosen when the engine starts: AddressSanitizer follows thread stacks,
  // not SimGrid's raw context switches (false reports when actors unwind). The ThreadSanitizer
  // build defines WISP_SANITIZED too: it sees the actors' hand-overs as the threads' locks.
  char factory[] = "--cfg=contexts/factory:thread";
  int argc = 2;
  char* argv[] = {name, factory, nullptr};
#else
  int argc = 1;
  char* argv[] = {name, nullptr};
#endif
  sg::Engine engine(&argc, argv);
  configure_engine(options.simgrid_config);
  const std::vector<sg::Host*> hosts = build_platform(engine, platform, trace.rank_count(), options.zero_communication);
  World w(trace, options);
  w.fixed_transfers = FixedTransfers(options.fixed_routes && !platform.varies_in_time && time_invariant_models());
  w.runtime_only = runtime_only;
  build_world(w, platform, hosts);
  platform_facts(w, hosts, w.stats);
  const std::vector<std::unique_ptr<RankActor>> ranks = start_actors(w);
  SimulationOutcome out;
  watch_deadlock(w, out);
  report_progress(w, started);

  const auto run_start = Clock::now();
  engine.run();
  w.stats.simulation_seconds = seconds_since(run_start);
  w.stats.probes = w.fixed_transfers.probes();
  w.stats.child_seconds = seconds_since(started);
  out.stats = w.stats;
  out.times = std::move(w.times);
  if (runtime_only)  // each rank's last event alone
    for (Rank r = 0; r < trace.rank_count(); ++r)
      if (!trace.ranks[r].events.empty()) out.times[r] = {w.ends[r]};
  out.residuals = std::move(w.residuals);
  out.calls = std::move(w.anchored_calls);
  return out;
}

}  // namespace wisp::replay_impl
