// A reader of Cube 4 archives for the tests, written from the format (pycubexr's format note and
// Score-P's files), not from wisp's writer: the tar's anchor.xml (metric, call and system trees)
// and each metric's <id>.index and <id>.data, values metric-inclusive as CubeLib reads them.
#pragma once

#include <pugixml.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "wisp/io/read_file.hpp"
#include "wisp/io/tar_archive.hpp"

namespace wisp::test {

struct CubeFile {
  std::vector<std::string> metrics, display, units;  // by metric id
  std::vector<int> metric_parent;                    // -1: a root
  std::vector<std::string> cnode_path;               // "program/main/MPI_Recv", by cnode id
  std::vector<int> location_rank;                    // process rank of each location
  std::vector<int> location_thread;                  // its rank within the process (0: the master)
  std::vector<std::vector<double>> stored;           // [metric][cnode * locations + location]

  std::size_t locations() const { return location_rank.size(); }
  int metric(const std::string& name) const {
    for (std::size_t m = 0; m < metrics.size(); ++m)
      if (metrics[m] == name) return static_cast<int>(m);
    return -1;
  }
  // The metric-inclusive value, as CubeLib reads a stored value (its exclusive view of a metric
  // with children is the stored value minus the children's).
  double value(int m, std::size_t cnode, std::size_t location) const {
    return stored[m][cnode * locations() + location];
  }
};

namespace cube_detail {

template <typename T>
T get(const std::string& s, std::size_t at) {
  if (at + sizeof(T) > s.size()) throw std::runtime_error("cube file too short");
  T v;
  std::memcpy(&v, s.data() + at, sizeof(T));
  return v;
}

inline void metrics(pugi::xml_node parent, int parent_id, CubeFile& out) {
  for (pugi::xml_node m : parent.children("metric")) {
    const auto id = static_cast<std::size_t>(m.attribute("id").as_int());
    if (out.metrics.size() <= id) {
      out.metrics.resize(id + 1), out.display.resize(id + 1), out.units.resize(id + 1);
      out.metric_parent.resize(id + 1, -1);
    }
    out.metrics[id] = m.child_value("uniq_name");
    out.display[id] = m.child_value("disp_name");
    out.units[id] = m.child_value("uom");
    out.metric_parent[id] = parent_id;
    if (std::string(m.child_value("dtype")) != "DOUBLE") throw std::runtime_error("only DOUBLE metrics expected");
    metrics(m, static_cast<int>(id), out);
  }
}

inline void cnodes(pugi::xml_node parent, const std::string& prefix, const std::map<int, std::string>& regions,
                   CubeFile& out) {
  for (pugi::xml_node c : parent.children("cnode")) {
    const auto id = static_cast<std::size_t>(c.attribute("id").as_int());
    if (out.cnode_path.size() <= id) out.cnode_path.resize(id + 1);
    const std::string path = prefix + regions.at(c.attribute("calleeId").as_int());
    out.cnode_path[id] = path;
    cnodes(c, path + "/", regions, out);
  }
}

inline void locations(pugi::xml_node node, CubeFile& out) {
  for (pugi::xml_node child : node.children()) {
    if (std::string(child.name()) == "systemtreenode") locations(child, out);
    if (std::string(child.name()) != "locationgroup") continue;
    for (pugi::xml_node loc : child.children("location")) {
      const auto id = static_cast<std::size_t>(loc.attribute("Id").as_int());
      if (out.location_rank.size() <= id) out.location_rank.resize(id + 1), out.location_thread.resize(id + 1);
      out.location_rank[id] = std::stoi(child.child_value("rank"));
      out.location_thread[id] = std::stoi(loc.child_value("rank"));
    }
  }
}

// CubeLib 4.8.2's grammar (Cube4Parser.yy: cube_info, cube_dump, CubeGUI) closes only <attr>,
// <parameter> and <dim> with "/>"; it stops at any other self-closing element.
inline void require_end_tags(const std::string& xml) {
  for (std::size_t end = xml.find("/>"); end != std::string::npos; end = xml.find("/>", end + 2)) {
    const std::size_t open = xml.rfind('<', end);
    const std::string name = xml.substr(open + 1, xml.find_first_of(" \t\n/", open + 1) - open - 1);
    if (name != "attr" && name != "parameter" && name != "dim")
      throw std::runtime_error("anchor.xml: <" + name + "/> is self-closing, which CubeLib's grammar refuses");
  }
}

}  // namespace cube_detail

inline CubeFile read_cube(const std::filesystem::path& file) {
  const auto bytes = read_file(file);
  if (!bytes) throw std::runtime_error("cannot read " + file.string());
  std::map<std::string, std::string> members;
  for (TarMember& m : read_tar(*bytes, file.string())) members[m.name] = std::move(m.content);
  cube_detail::require_end_tags(members.at("anchor.xml"));
  pugi::xml_document doc;
  if (!doc.load_string(members.at("anchor.xml").c_str())) throw std::runtime_error("anchor.xml is not XML");
  pugi::xml_node cube = doc.child("cube");
  CubeFile out;
  cube_detail::metrics(cube.child("metrics"), -1, out);
  std::map<int, std::string> regions;
  for (pugi::xml_node r : cube.child("program").children("region"))
    regions[r.attribute("id").as_int()] = r.child_value("name");
  cube_detail::cnodes(cube.child("program"), "", regions, out);
  cube_detail::locations(cube.child("system"), out);
  const std::size_t L = out.locations();
  for (std::size_t m = 0; m < out.metrics.size(); ++m) {
    const std::string& index = members.at(std::to_string(m) + ".index");
    const std::string& data = members.at(std::to_string(m) + ".data");
    if (index.compare(0, 11, "CUBEX.INDEX") != 0 || cube_detail::get<std::int32_t>(index, 11) != 1)
      throw std::runtime_error("bad index header");
    const auto n = cube_detail::get<std::uint32_t>(index, 18);
    if (data.compare(0, 10, "CUBEX.DATA") != 0 || data.size() != 10 + std::size_t(n) * L * sizeof(double))
      throw std::runtime_error("bad data file of metric " + out.metrics[m]);
    std::vector<double>& values = out.stored.emplace_back(out.cnode_path.size() * L, 0.0);
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto cnode = cube_detail::get<std::uint32_t>(index, 22 + 4 * std::size_t(i));
      for (std::size_t l = 0; l < L; ++l)
        values[cnode * L + l] = cube_detail::get<double>(data, 10 + (std::size_t(i) * L + l) * sizeof(double));
    }
  }
  return out;
}

}  // namespace wisp::test
