// Platform descriptions: wisp:* properties of XML files, generated crossbars and their XML form.
// See platform.hpp.
#include "wisp/replay/platform.hpp"

#include "platform_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <system_error>

#include "wisp/error.hpp"
#include "wisp/io/read_file.hpp"

namespace wisp {

double MpiCosts::overhead(const std::string& function) const {
  const auto it = overheads.find(function);
  if (it != overheads.end()) return it->second;
  return per_message(function) ? 0.0 : default_overhead;
}

bool MpiCosts::per_message(const std::string& function) const {
  return (send_overhead || receive_overhead) && !overheads.count(function);
}

std::string_view to_string(Topology t) {
  switch (t) {
    case Topology::Crossbar:
      return "crossbar";
    case Topology::FatTree:
      return "fat-tree";
    case Topology::Torus:
      return "torus";
    case Topology::Dragonfly:
      return "dragonfly";
  }
  return "?";
}

Topology topology_from_name(std::string_view name) {
  for (Topology t : {Topology::Crossbar, Topology::FatTree, Topology::Torus, Topology::Dragonfly})
    if (to_string(t) == name) return t;
  throw Error(fmt::format("unknown topology '{}' (expected crossbar, fat-tree, torus or dragonfly)", name));
}

namespace {

std::string read_text(const std::filesystem::path& file) {
  std::optional<std::string> text = read_file(file);
  if (!text) throw Error(fmt::format("platform {}: cannot open the file", file.string()));
  return std::move(*text);
}

double parse_number(const std::string& text, const std::filesystem::path& file, std::size_t line,
                    const std::string& id) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  // Finite and at most 1e21 (a speed in flop/s); seconds and bytes are bounded where they are used.
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !(v >= 0) || !(v <= 1e21))
    throw Error(
        fmt::format("platform {} line {}: property {} has value '{}', expected a finite "
                    "non-negative number (seconds or bytes)",
                    file.string(), line, id, text));
  return v;
}

// "17:1.25;18:0.93": size class → factor.
// "12:3.1e-6;13:4e-6": size class → seconds (not negative).
std::map<std::uint32_t, double> parse_factors(const std::string& text, const std::filesystem::path& file,
                                              std::size_t line, const std::string& id, bool seconds = false) {
  std::map<std::uint32_t, double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    const auto colon = item.find(':');
    char* end = nullptr;
    const unsigned long k = colon == std::string::npos ? 0 : std::strtoul(item.c_str(), &end, 10);
    if (colon == std::string::npos || end != item.c_str() + colon || k > 64)
      throw Error(
          fmt::format("platform {} line {}: property {} item '{}' is not like 17:{} "
                      "(size class 0-64, {})",
                      file.string(), line, id, item, seconds ? "2e-6" : "1.25", seconds ? "seconds" : "factor"));
    const double f = parse_number(item.substr(colon + 1), file, line, id);
    if (seconds ? !(f >= 0) : !(f > 0))
      throw Error(fmt::format("platform {} line {}: property {} has a {}", file.string(), line, id,
                              seconds ? "negative cost" : "factor that is not positive"));
    out[static_cast<std::uint32_t>(k)] = f;
  }
  return out;
}

// A profile: an attribute naming a file of values over time (bandwidth_file, latency_file, speed_file,
// state_file, ...) or a <trace> connected to a resource.
bool varies_in_time(const std::vector<replay_impl::XmlElement>& elements) {
  for (const replay_impl::XmlElement& e : elements) {
    if (e.tag == "trace" || e.tag == "trace_connect") return true;
    for (const auto& [name, value] : e.attributes)
      if (name.size() > 5 && name.compare(name.size() - 5, 5, "_file") == 0) return true;
  }
  return false;
}

}  // namespace

Platform load_platform(const std::filesystem::path& file) {
  std::error_code ec;  // a name the system refuses (too long, ...) is the same one-line error
  if (!std::filesystem::is_regular_file(file, ec))
    throw Error(fmt::format("platform {}: {}", file.string(),
                            ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file"));
  Platform p;
  p.file = file;
  const std::vector<replay_impl::XmlElement> elements = replay_impl::platform_elements(read_text(file), file);
  replay_impl::check_platform_xml(elements, file);
  p.varies_in_time = varies_in_time(elements);
  for (const replay_impl::XmlElement& element : elements) {
    if (element.tag != "prop") continue;
    const std::string id = element.attribute("id").value_or("");
    if (id.rfind("wisp:", 0) != 0) continue;
    const std::size_t line = element.line;
    const std::string value = element.attribute("value").value_or("");
    if (id == "wisp:eager-threshold") {
      const double bytes = parse_number(value, file, line, id);
      if (bytes > 1e15)
        throw Error(
            fmt::format("platform {} line {}: property {} = {} bytes is larger than any message "
                        "(at most 1e15)",
                        file.string(), line, id, value));
      p.mpi.eager_threshold = static_cast<std::uint64_t>(bytes);
    } else if (id == "wisp:overhead") {
      p.mpi.default_overhead = parse_number(value, file, line, id);
    } else if (id == "wisp:message-overhead:send") {
      p.mpi.send_overhead = parse_number(value, file, line, id);
    } else if (id == "wisp:message-overhead:receive") {
      p.mpi.receive_overhead = parse_number(value, file, line, id);
    } else if (id == "wisp:intra-node-overhead") {
      p.mpi.intra_overhead = parse_number(value, file, line, id);
    } else if (id == "wisp:typical-excess:latency" || id == "wisp:typical-excess:per-byte") {
      auto& excess = p.mpi.typical_excess.emplace(p.mpi.typical_excess.value_or(MpiCosts::TypicalExcess{}));
      (id == "wisp:typical-excess:latency" ? excess.latency : excess.per_byte) = parse_number(value, file, line, id);
    } else if (id == "wisp:eager-copy:per-byte" || id == "wisp:eager-copy:up-to") {
      auto& copy = p.mpi.eager_copy.emplace(p.mpi.eager_copy.value_or(MpiCosts::EagerCopy{}));
      const double number = parse_number(value, file, line, id);
      if (id == "wisp:eager-copy:per-byte")
        copy.per_byte = number;
      else if (number > 1e15)
        throw Error(fmt::format("platform {} line {}: property {} = {} bytes is larger than any message (at most 1e15)",
                                file.string(), line, id, value));
      else
        copy.up_to = static_cast<std::uint64_t>(number);
    } else if (id.rfind("wisp:overhead:", 0) == 0 && id.size() > 14) {
      p.mpi.overheads[id.substr(14)] = parse_number(value, file, line, id);
    } else if (id.rfind("wisp:size-factors:", 0) == 0 && id.size() > 18) {
      p.size_factors[id.substr(18)] = parse_factors(value, file, line, id);
    } else if (id.rfind("wisp:call-costs:", 0) == 0 && id.find(':', 16) != std::string::npos) {
      const std::size_t colon = id.rfind(':');  // wisp:call-costs:<host>:<MPI function>
      p.mpi.call_costs[id.substr(16, colon - 16)][id.substr(colon + 1)] = parse_factors(value, file, line, id, true);
    } else if (id == "wisp:reference-speed") {
      p.reference_speed = parse_number(value, file, line, id);
    } else if (id == "wisp:network-one-size") {
      const double bytes = parse_number(value, file, line, id);
      if (bytes > 1e15)
        throw Error(fmt::format("platform {} line {}: property {} = {} bytes is larger than any message (at most 1e15)",
                                file.string(), line, id, value));
      p.network_one_size = static_cast<std::uint64_t>(bytes);
    } else {
      throw Error(
          fmt::format("platform {} line {}: unknown property '{}' (expected "
                      "wisp:eager-threshold, wisp:overhead, wisp:overhead:MPI_<name>, "
                      "wisp:message-overhead:send, wisp:message-overhead:receive, wisp:intra-node-overhead, "
                      "wisp:typical-excess:latency, wisp:typical-excess:per-byte, "
                      "wisp:eager-copy:per-byte, wisp:eager-copy:up-to, "
                      "wisp:size-factors:<host>, wisp:call-costs:<host>:MPI_<name>, wisp:reference-speed or "
                      "wisp:network-one-size)",
                      file.string(), line, id));
    }
  }
  return p;
}

Platform contention_free_crossbar(std::uint32_t hosts, double latency, double bandwidth, double overhead,
                                  std::uint64_t eager_threshold, double speed) {
  Platform p;
  p.topology = Topology::Crossbar;
  p.hosts = hosts;
  p.speed = speed;
  p.latency = latency;
  p.bandwidth = bandwidth;
  p.contention = false;
  p.mpi.default_overhead = overhead;
  p.mpi.eager_threshold = eager_threshold;
  return p;
}

std::string platform_xml(const Platform& p) {
  if (!p.file.empty()) throw Error("platform_xml: the platform already is the file " + p.file.string());
  if (p.topology != Topology::Crossbar)
    throw Error("platform_xml: only generated crossbar platforms can be written as XML");
  if (p.hosts == 0) throw Error("platform_xml: the number of hosts must be given");
  std::string out =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- Written by wisp. A crossbar: every host has a private up and down link to a\n"
      "     non-blocking switch; a message from host i to host j crosses i's up link and j's\n"
      "     down link. wisp:* properties hold the MPI software model (see wisp's src/replay/README.md). -->\n"
      "<platform version=\"4.1\">\n"
      "  <zone id=\"wisp-crossbar\" routing=\"Cluster\">\n";
  out += fmt::format("    <prop id=\"wisp:eager-threshold\" value=\"{}\"/>\n", p.mpi.eager_threshold);
  out += fmt::format("    <prop id=\"wisp:overhead\" value=\"{:.9g}\"/>\n", p.mpi.default_overhead);
  for (const auto& [name, value] : p.mpi.overheads)
    out += fmt::format("    <prop id=\"wisp:overhead:{}\" value=\"{:.9g}\"/>\n", name, value);
  if (p.mpi.send_overhead)
    out += fmt::format("    <prop id=\"wisp:message-overhead:send\" value=\"{:.9g}\"/>\n", *p.mpi.send_overhead);
  if (p.mpi.receive_overhead)
    out += fmt::format("    <prop id=\"wisp:message-overhead:receive\" value=\"{:.9g}\"/>\n", *p.mpi.receive_overhead);
  if (p.mpi.intra_overhead)
    out += fmt::format("    <prop id=\"wisp:intra-node-overhead\" value=\"{:.9g}\"/>\n", *p.mpi.intra_overhead);
  if (p.mpi.typical_excess) {
    out +=
        fmt::format("    <prop id=\"wisp:typical-excess:latency\" value=\"{:.9g}\"/>\n", p.mpi.typical_excess->latency);
    out += fmt::format("    <prop id=\"wisp:typical-excess:per-byte\" value=\"{:.9g}\"/>\n",
                       p.mpi.typical_excess->per_byte);
  }
  if (p.mpi.eager_copy) {
    out += fmt::format("    <prop id=\"wisp:eager-copy:per-byte\" value=\"{:.9g}\"/>\n", p.mpi.eager_copy->per_byte);
    out += fmt::format("    <prop id=\"wisp:eager-copy:up-to\" value=\"{}\"/>\n", p.mpi.eager_copy->up_to);
  }
  if (p.reference_speed > 0)
    out += fmt::format("    <prop id=\"wisp:reference-speed\" value=\"{:.9g}\"/>\n", p.reference_speed);
  if (p.network_one_size > 0)
    out += fmt::format("    <prop id=\"wisp:network-one-size\" value=\"{}\"/>\n", p.network_one_size);
  for (const auto& [host, factors] : p.size_factors) {
    std::string value;
    for (const auto& [k, f] : factors) value += fmt::format("{}{}:{:.6g}", value.empty() ? "" : ";", k, f);
    out += fmt::format("    <prop id=\"wisp:size-factors:{}\" value=\"{}\"/>\n", host, value);
  }
  for (const auto& [host, functions] : p.mpi.call_costs)
    for (const auto& [function, costs] : functions) {
      std::string value;
      for (const auto& [k, c] : costs) value += fmt::format("{}{}:{:.17g}", value.empty() ? "" : ";", k, c);
      out += fmt::format("    <prop id=\"wisp:call-costs:{}:{}\" value=\"{}\"/>\n", host, function, value);
    }
  const char* sharing = p.contention ? "SHARED" : "FATPIPE";
  for (std::uint32_t h = 0; h < p.hosts; ++h) {
    HostLink l{p.latency / 2, p.latency / 2, p.bandwidth, p.bandwidth};
    if (h < p.host_links.size()) l = p.host_links[h];
    out += fmt::format("    <host id=\"node-{}\" speed=\"{:.9g}f\" core=\"{}\"/>\n", h, p.speed, p.cores);
    out += fmt::format(
        "    <link id=\"node-{}_up\" bandwidth=\"{:.9g}Bps\" latency=\"{:.9g}s\" "
        "sharing_policy=\"{}\"/>\n",
        h, l.up_bandwidth, l.up_latency, sharing);
    out += fmt::format(
        "    <link id=\"node-{}_down\" bandwidth=\"{:.9g}Bps\" latency=\"{:.9g}s\" "
        "sharing_policy=\"{}\"/>\n",
        h, l.down_bandwidth, l.down_latency, sharing);
    out += fmt::format("    <host_link id=\"node-{}\" up=\"node-{}_up\" down=\"node-{}_down\"/>\n", h, h, h);
    if (p.intra)
      out += fmt::format(
          "    <link id=\"node-{}_intra\" bandwidth=\"{:.9g}Bps\" latency=\"{:.9g}s\" sharing_policy=\"{}\"/>\n", h,
          p.intra->bandwidth, p.intra->latency, sharing);
  }
  if (p.intra)  // a route from a host to itself: the network inside the node (routes after the links)
    for (std::uint32_t h = 0; h < p.hosts; ++h)
      out += fmt::format(
          "    <route src=\"node-{}\" dst=\"node-{}\" symmetrical=\"NO\"><link_ctn id=\"node-{}_intra\"/></route>\n", h,
          h, h);
  out += "  </zone>\n</platform>\n";
  return out;
}

}  // namespace wisp
