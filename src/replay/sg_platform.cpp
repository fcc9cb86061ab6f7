// SimGrid platforms from wisp Platforms. See sg_platform.hpp.
#include "sg_platform.hpp"

#include <fmt/format.h>
#include <xbt/log.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "wisp/error.hpp"

namespace wisp::replay_impl {

namespace sg = simgrid::s4u;

void configure_engine(const std::vector<std::string>& settings) {
  // Quiet: no "Configuration change" lines; the deadlock listing is replaced by wisp's report.
  xbt_log_control_set("xbt_cfg.thresh:warning");
  xbt_log_control_set("s4u_actor.thresh:warning");
  xbt_log_control_set("ker_engine.app:file:/dev/null");
  xbt_log_control_set("ker_engine.additivity:off");
  // CM02 is the plain max-min flow model: no latency/bandwidth correction factors (LV08 has
  // 13.01 and 0.97), no RTT-weighted sharing. TCP-gamma 0 removes the window bound
  // gamma / (2 latency) on a flow's rate; without cross-traffic a transfer does not load the
  // reverse direction of its links with acknowledgements.
  sg::Engine::set_config("network/model:CM02");
  sg::Engine::set_config("network/latency-factor:1");
  sg::Engine::set_config("network/bandwidth-factor:1");
  sg::Engine::set_config("network/weight-S:0");
  sg::Engine::set_config("network/TCP-gamma:0");
  sg::Engine::set_config("network/crosstraffic:0");
  // SimGrid 3.32's defaults, pinned because simulated times depend on them: Full updates (network
  // or CPU) and a coarser surf/precision move event times. None of the alternatives gained speed
  // without changing times (tests/perf/README.md, "SimGrid settings"); parallel contexts crash
  // (the actors share one World).
  sg::Engine::set_config("network/optim:Lazy");
  sg::Engine::set_config("cpu/optim:Lazy");
  sg::Engine::set_config("surf/precision:1e-9");
#ifndef WISP_SANITIZED  // thread contexts, chosen when the engine starts (simulation.cpp)
  sg::Engine::set_config("contexts/factory:raw");
#endif
  sg::Engine::set_config("contexts/stack-size:256");
  for (const std::string& s : settings) {
    try {
      sg::Engine::set_config(s);
    } catch (const std::exception& e) {
      const std::string why = e.what();  // SimGrid lists every key after the first line
      throw Error(fmt::format("replay: SimGrid setting '{}': {}", s, why.substr(0, why.find('\n'))));
    }
  }
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      const std::string_view x = std::string_view(a).substr(i, i2 - i);
      const std::string_view y = std::string_view(b).substr(j, j2 - j);
      const auto xs = x.find_first_not_of('0'), ys = y.find_first_not_of('0');
      const std::string_view xn = xs == std::string_view::npos ? "" : x.substr(xs);
      const std::string_view yn = ys == std::string_view::npos ? "" : y.substr(ys);
      if (xn.size() != yn.size()) return xn.size() < yn.size();
      if (xn != yn) return xn < yn;
      i = i2;
      j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

namespace {

std::vector<unsigned long> numbers(const std::string& text, char sep, const char* what) {
  std::vector<unsigned long> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) {
    try {
      std::size_t used = 0;
      const unsigned long v = std::stoul(part, &used);
      if (used != part.size() || v == 0) throw std::invalid_argument(part);
      out.push_back(v);
    } catch (const std::exception&) {
      throw Error(fmt::format("platform: {} parameters '{}' are not positive integers", what, text));
    }
  }
  if (out.empty()) throw Error(fmt::format("platform: {} needs parameters", what));
  return out;
}

std::vector<std::string> groups(const std::string& text, std::size_t expected, const char* what, const char* example) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ';')) out.push_back(part);
  if (out.size() != expected)
    throw Error(fmt::format("platform: {} parameters '{}' must look like \"{}\"", what, text, example));
  return out;
}

sg::Link::SharingPolicy policy(const Platform& p) {
  return p.contention ? sg::Link::SharingPolicy::SHARED : sg::Link::SharingPolicy::FATPIPE;
}

// The link inside host `name` (Platform::intra).
sg::Link* intra_link(sg::NetZone* zone, const Platform& p, const std::string& name) {
  return zone->create_link(name + "_intra", p.intra->bandwidth)
      ->set_latency(p.intra->latency)
      ->set_sharing_policy(policy(p))
      ->seal();
}

void build_crossbar(const Platform& p, std::uint32_t hosts) {
  sg::NetZone* zone = sg::create_star_zone("wisp-crossbar");
  for (std::uint32_t h = 0; h < hosts; ++h) {
    HostLink l{p.latency / 2, p.latency / 2, p.bandwidth, p.bandwidth};
    if (h < p.host_links.size()) l = p.host_links[h];
    const std::string name = fmt::format("node-{}", h);
    sg::Host* host = zone->create_host(name, p.speed)->set_core_count(static_cast<int>(p.cores))->seal();
    sg::Link* up = zone->create_link(name + "_up", l.up_bandwidth)
                       ->set_latency(l.up_latency)
                       ->set_sharing_policy(policy(p))
                       ->seal();
    sg::Link* down = zone->create_link(name + "_down", l.down_bandwidth)
                         ->set_latency(l.down_latency)
                         ->set_sharing_policy(policy(p))
                         ->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {sg::LinkInRoute(up)}, false);
    zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, {sg::LinkInRoute(down)}, false);
    if (p.intra)
      zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                      {sg::LinkInRoute(intra_link(zone, p, name))}, false);
  }
  zone->seal();
}

sg::ClusterCallbacks host_maker(const Platform& p) {
  const double speed = p.speed;
  const int cores = static_cast<int>(p.cores);
  auto host = [speed, cores](sg::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    sg::Host* h = zone->create_host(fmt::format("node-{}", id), speed)->set_core_count(cores)->seal();
    return std::make_pair(h->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  if (!p.intra) return sg::ClusterCallbacks(host);
  auto loopback = [p](sg::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    return intra_link(zone, p, fmt::format("node-{}", id));
  };
  return sg::ClusterCallbacks(host, loopback, {});
}

void build_cluster(const Platform& p) {
  const std::string& t = p.topology_parameters;
  sg::NetZone* zone = nullptr;
  switch (p.topology) {
    case Topology::Torus:
      zone = sg::create_torus_zone("wisp-torus", nullptr, numbers(t, ',', "torus"), host_maker(p), p.bandwidth,
                                   p.latency, policy(p));
      break;
    case Topology::FatTree: {
      const auto g = groups(t, 4, "fat-tree", "2;4,4;1,2;1,2");
      const auto levels = numbers(g[0], ',', "fat-tree");
      auto as_uint = [](const std::vector<unsigned long>& v) { return std::vector<unsigned int>(v.begin(), v.end()); };
      const sg::FatTreeParams params(static_cast<unsigned>(levels.at(0)), as_uint(numbers(g[1], ',', "fat-tree")),
                                     as_uint(numbers(g[2], ',', "fat-tree")), as_uint(numbers(g[3], ',', "fat-tree")));
      zone =
          sg::create_fatTree_zone("wisp-fat-tree", nullptr, params, host_maker(p), p.bandwidth, p.latency, policy(p));
      break;
    }
    case Topology::Dragonfly: {
      const auto g = groups(t, 4, "dragonfly", "3,4;4,3;5,1;2");
      auto pair = [](const std::string& s) {
        const auto v = numbers(s, ',', "dragonfly");
        if (v.size() != 2) throw Error("platform: dragonfly groups, chassis and routers need two numbers each");
        return std::make_pair(static_cast<unsigned>(v[0]), static_cast<unsigned>(v[1]));
      };
      const sg::DragonflyParams params(pair(g[0]), pair(g[1]), pair(g[2]),
                                       static_cast<unsigned>(numbers(g[3], ',', "dragonfly").at(0)));
      zone = sg::create_dragonfly_zone("wisp-dragonfly", nullptr, params, host_maker(p), p.bandwidth, p.latency,
                                       policy(p));
      break;
    }
    case Topology::Crossbar:
      break;
  }
  if (zone) zone->seal();
}

}  // namespace

std::vector<sg::Host*> build_platform(sg::Engine& engine, const Platform& p, std::uint32_t ranks, bool zero_latency) {
  if (!p.file.empty()) {
    engine.load_platform(p.file.string());
  } else if (p.topology == Topology::Crossbar) {
    build_crossbar(p, p.hosts ? p.hosts : std::max<std::uint32_t>(ranks, 1));
  } else {
    build_cluster(p);
  }
  const double latency_factor = zero_latency ? 0.0 : p.latency_factor;
  for (sg::Link* link : engine.get_all_links()) {
    if (latency_factor != 1) link->set_latency(link->get_latency() * latency_factor);
    if (p.bandwidth_factor != 1) link->set_bandwidth(link->get_bandwidth() * p.bandwidth_factor);
  }
  std::vector<sg::Host*> hosts = engine.get_all_hosts();
  if (hosts.empty()) throw Error("platform " + p.file.string() + ": it has no hosts");
  std::sort(hosts.begin(), hosts.end(),
            [](const sg::Host* a, const sg::Host* b) { return natural_less(a->get_name(), b->get_name()); });
  return hosts;
}

}  // namespace wisp::replay_impl
