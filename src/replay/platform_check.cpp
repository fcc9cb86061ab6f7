// Attribute checks of SimGrid platform XML. See platform_check.hpp.
#include "platform_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "wisp/error.hpp"

namespace wisp::replay_impl {

namespace {

constexpr double kMostHosts = 1 << 20;

struct Place {
  const std::filesystem::path& file;
  std::size_t line;
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("platform {} line {}: {}", file.string(), line, what));
  }
};

// "1Gf", "12.5GBps", "0.5us", "-1us", "nan": the number and its unit letters.
void quantity(const Place& at, const std::string& element, const std::string& name, const std::string& value,
              bool zero_allowed) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  const char* unit = end;
  const bool unit_ok = std::all_of(unit, value.c_str() + value.size(),
                                   [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
  if (value.empty() || end == value.c_str() || !unit_ok || !std::isfinite(v) || v < 0 || (!zero_allowed && v == 0))
    at.fail(fmt::format("<{}> {}=\"{}\" must be a finite {} number with a unit (e.g. {})", element, name, value,
                        zero_allowed ? "non-negative" : "positive",
                        name == "speed"                                          ? "1Gf"
                        : name == "bandwidth" || name == "bb_bw" || name == "bw" ? "12.5GBps"
                                                                                 : "0.5us"));
}

// "0-99,200-299": the number of hosts a cluster radical makes.
void radical(const Place& at, const std::string& value) {
  double hosts = 0;
  std::size_t begin = 0;
  while (begin <= value.size()) {
    const std::size_t comma = value.find(',', begin);
    const std::string part = value.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const std::size_t dash = part.find('-');
    char* end = nullptr;
    const double lo = std::strtod(part.c_str(), &end);
    const double hi = dash == std::string::npos ? lo : std::strtod(part.c_str() + dash + 1, nullptr);
    if (part.empty() || !(hi >= lo) || lo < 0) at.fail(fmt::format("radical \"{}\" is not like 0-63,128", value));
    hosts += hi - lo + 1;
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (hosts > kMostHosts)
    at.fail(fmt::format("radical \"{}\" makes {:.0f} hosts (at most {:.0f})", value, hosts, kMostHosts));
}

}  // namespace

void check_platform_xml(const std::vector<XmlElement>& elements, const std::filesystem::path& file) {
  static const std::set<std::string> routings = {
      "Full",    "Floyd",          "Dijkstra",     "DijkstraCache",    "None", "Vivaldi",
      "Cluster", "ClusterFatTree", "ClusterTorus", "ClusterDragonfly", "Star", "Wifi"};
  static const std::set<std::string> checked = {"host", "cluster", "link", "zone", "AS", "backbone", "peer", "cabinet"};
  for (const XmlElement& element : elements) {
    if (!checked.count(element.tag)) continue;
    const Place at{file, element.line};
    auto check = [&](const char* name, bool zero_allowed) {
      if (const auto v = element.attribute(name)) quantity(at, element.tag, name, *v, zero_allowed);
    };
    check("speed", false);
    check("bandwidth", false);
    check("bw", false);
    check("bb_bw", false);
    check("latency", true);
    check("lat", true);
    check("bb_lat", true);
    if (const auto r = element.attribute("routing"); r && !routings.count(*r))
      at.fail(
          fmt::format("<{}> routing=\"{}\" is not a SimGrid routing (Full, Floyd, Dijkstra, "
                      "DijkstraCache, None, Vivaldi, Cluster, ...)",
                      element.tag, *r));
    if (const auto r = element.attribute("radical")) radical(at, *r);
  }
}

}  // namespace wisp::replay_impl
