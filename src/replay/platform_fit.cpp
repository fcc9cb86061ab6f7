// A platform file with fewer hosts than the trace has ranks, when it describes a network rather
// than a machine (a `wisp calibrate` crossbar), and the links of such a file. See fit_to_ranks()
// and crossbar_links() in platform.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "platform_xml.hpp"
#include "wisp/error.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/platform.hpp"

namespace wisp {

namespace {

using replay_impl::XmlElement;

// "1.5e+10Bps" with unit "Bps" -> 1.5e10; nothing if the text is not a number and that unit.
std::optional<double> quantity(const std::optional<std::string>& text, const std::string& unit) {
  if (!text || text->size() <= unit.size() || text->compare(text->size() - unit.size(), unit.size(), unit) != 0)
    return std::nullopt;
  const std::string number = text->substr(0, text->size() - unit.size());
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !(v >= 0)) return std::nullopt;
  return v;
}

struct CrossbarHost {
  std::string name;
  double speed = 0;
  std::uint32_t cores = 1;
  HostLink link;
  bool shared = true;  // sharing_policy SHARED (else FATPIPE)
};

// The hosts of a crossbar as platform_xml() writes it (zone "wisp-crossbar", a host, its up and
// down links and its host_link each), or nothing if the file is anything else.
std::optional<std::vector<CrossbarHost>> wisp_crossbar(const std::vector<XmlElement>& elements) {
  bool crossbar = false;
  std::map<std::string, const XmlElement*> links;
  std::vector<CrossbarHost> hosts;
  std::map<std::string, std::size_t> host_index;
  for (const XmlElement& e : elements) {
    if (e.tag == "zone") {
      if (crossbar || e.attribute("id") != "wisp-crossbar") return std::nullopt;  // one zone, the crossbar
      crossbar = true;
    } else if (e.tag == "host") {
      const auto speed = quantity(e.attribute("speed"), "f");
      const int cores = std::atoi(e.attribute("core").value_or("1").c_str());
      if (!speed || cores < 1) return std::nullopt;
      host_index[e.attribute("id").value_or("")] = hosts.size();
      hosts.push_back(
          CrossbarHost{e.attribute("id").value_or(""), *speed, static_cast<std::uint32_t>(cores), {}, true});
    } else if (e.tag == "link") {
      links[e.attribute("id").value_or("")] = &e;
    } else if (e.tag != "host_link" && e.tag != "prop" && e.tag != "platform") {
      return std::nullopt;  // clusters, routes, other zones: a machine of its own
    }
  }
  if (!crossbar || hosts.empty()) return std::nullopt;
  for (const XmlElement& e : elements) {
    if (e.tag != "host_link") continue;
    const auto h = host_index.find(e.attribute("id").value_or(""));
    const auto up = links.find(e.attribute("up").value_or(""));
    const auto down = links.find(e.attribute("down").value_or(""));
    if (h == host_index.end() || up == links.end() || down == links.end()) return std::nullopt;
    const auto up_bw = quantity(up->second->attribute("bandwidth"), "Bps");
    const auto up_lat = quantity(up->second->attribute("latency"), "s");
    const auto down_bw = quantity(down->second->attribute("bandwidth"), "Bps");
    const auto down_lat = quantity(down->second->attribute("latency"), "s");
    if (!up_bw || !up_lat || !down_bw || !down_lat) return std::nullopt;
    CrossbarHost& host = hosts[h->second];
    host.link = HostLink{*up_lat, *down_lat, *up_bw, *down_bw};
    host.shared = up->second->attribute("sharing_policy").value_or("SHARED") != "FATPIPE";
  }
  for (const CrossbarHost& h : hosts)
    if (!(h.link.up_bandwidth > 0 && h.link.down_bandwidth > 0)) return std::nullopt;
  return hosts;
}

// Entries keyed by host name (size factors, call costs) copied for every new host from the host
// it takes after.
template <typename Map>
void extend_by_host(Map& by_host, const std::vector<CrossbarHost>& hosts, std::uint32_t ranks) {
  for (auto r = static_cast<std::uint32_t>(hosts.size()); r < ranks; ++r) {
    const auto it = by_host.find(hosts[r % hosts.size()].name);
    if (it != by_host.end()) by_host[fmt::format("node-{}", r)] = it->second;
  }
}

// The crossbar hosts of a platform file, or nothing for a generated platform or any other file.
std::optional<std::vector<CrossbarHost>> crossbar_hosts(const Platform& p) {
  if (p.file.empty()) return std::nullopt;
  const std::optional<std::string> text = read_file(p.file);
  if (!text) return std::nullopt;
  return wisp_crossbar(replay_impl::platform_elements(*text, p.file));
}

// The crossbar's hosts as a generated crossbar of `nodes` hosts of `cores` cores, host h with the
// links, size factors and call costs of host h mod H.
void machine_of(Platform& p, const std::vector<CrossbarHost>& hosts, std::uint32_t nodes, std::uint32_t cores) {
  Platform g = p;
  g.file.clear();
  g.topology = Topology::Crossbar;
  g.hosts = nodes;
  g.speed = hosts.front().speed;
  g.cores = cores;
  g.contention = hosts.front().shared;
  g.host_links.clear();
  for (std::uint32_t h = 0; h < nodes; ++h) g.host_links.push_back(hosts[h % hosts.size()].link);
  extend_by_host(g.size_factors, hosts, nodes);
  extend_by_host(g.mpi.call_costs, hosts, nodes);
  p = std::move(g);
}

}  // namespace

std::optional<std::vector<HostLink>> crossbar_links(const Platform& p) {
  const std::optional<std::vector<CrossbarHost>> hosts = crossbar_hosts(p);
  if (!hosts) return std::nullopt;
  std::vector<HostLink> links;
  for (const CrossbarHost& h : *hosts) links.push_back(h.link);
  return links;
}

std::string fit_to_ranks(Platform& p, std::uint32_t ranks) {
  const std::optional<std::vector<CrossbarHost>> hosts = crossbar_hosts(p);
  if (!hosts) return "";
  std::uint64_t cores = 0;
  for (const CrossbarHost& h : *hosts) cores += h.cores;
  if (cores >= ranks) return "";
  for (const CrossbarHost& h : *hosts)  // platform_xml() names the hosts node-0, node-1, ...
    if (h.name != fmt::format("node-{}", &h - hosts->data())) return "";
  machine_of(p, *hosts, ranks, 1);
  return fmt::format(
      "its {} host{} describe the network (a wisp calibrate crossbar): the {} ranks run on one host each, "
      "rank r with the links and costs of node-(r mod {})",
      hosts->size(), hosts->size() == 1 ? "" : "s", ranks, hosts->size());
}

void as_nodes(Platform& p, std::uint32_t nodes, std::uint32_t cores) {
  const std::optional<std::vector<CrossbarHost>> hosts = crossbar_hosts(p);
  if (!hosts) throw Error(p.file.string() + ": nodes and cores take a platform file written by wisp calibrate");
  machine_of(p, *hosts, nodes ? nodes : static_cast<std::uint32_t>(hosts->size()), cores);
}

Platform::NodeNetwork mean_route(const std::vector<HostLink>& links) {
  double latency = 0, up = 0, down = 0;
  for (const HostLink& l : links)
    latency += l.up_latency + l.down_latency, up += l.up_bandwidth, down += l.down_bandwidth;
  const double n = static_cast<double>(links.size());
  return Platform::NodeNetwork{latency / n, std::min(up, down) / n};
}

void with_intra_calibration(Platform& p, const Platform& calibration) {
  const std::optional<std::vector<CrossbarHost>> hosts = crossbar_hosts(calibration);
  if (!hosts) throw Error(calibration.file.string() + ": intra takes a platform file written by wisp calibrate");
  std::vector<HostLink> links;
  for (const CrossbarHost& h : *hosts) links.push_back(h.link);
  p.intra = mean_route(links);
  Platform inside = calibration;
  inside.hosts = static_cast<std::uint32_t>(hosts->size());  // its ranks' hosts: node-(r mod hosts)
  p.intra_calibration = std::make_shared<const Platform>(std::move(inside));
}

}  // namespace wisp
