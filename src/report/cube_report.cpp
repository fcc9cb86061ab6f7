// Cube 4 archives of analyses. See cube_report.hpp; the format: anchor.xml (metric, call and
// system trees) and per metric <id>.index (the cnodes that have values) and <id>.data (their
// values, one per location, cnode by cnode) in an uncompressed tar (src/report/README.md, Cube).
#include "wisp/report/cube_report.hpp"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/tar_archive.hpp"

namespace wisp {

namespace {

// The metrics of the cube in tree order (parents before children) and each one's parent index.
struct MetricTree {
  std::vector<std::string> names;
  std::vector<std::uint32_t> parent;  // kNone: a root
};

// A metric's parent in the cube: its catalogue parent, except for ratios (POP factors multiply,
// Cube would add them up) and metrics the catalogue does not know.
std::string_view cube_parent(std::string_view metric) {
  const MetricInfo* info = find_metric(metric);
  return info && info->unit != "ratio" ? info->parent : std::string_view{};
}

MetricTree metric_tree(const MetricTable& table) {
  std::vector<std::string> wanted;  // the table's metrics and their ancestors
  for (const std::string& m : table.metrics)
    for (std::string_view x = m; !x.empty(); x = cube_parent(x))
      if (std::find(wanted.begin(), wanted.end(), x) == wanted.end()) wanted.emplace_back(x);
  std::vector<std::string> order;  // catalogue order, then the unknown ones
  for (const MetricInfo& info : metric_catalogue())
    if (std::find(wanted.begin(), wanted.end(), info.name) != wanted.end()) order.emplace_back(info.name);
  for (const std::string& m : wanted)
    if (!find_metric(m)) order.push_back(m);
  MetricTree tree;
  const auto visit = [&](auto&& self, const std::string& name, std::uint32_t parent) -> void {
    tree.names.push_back(name);
    tree.parent.push_back(parent);
    const auto me = static_cast<std::uint32_t>(tree.names.size() - 1);
    for (const std::string& child : order)
      if (cube_parent(child) == name) self(self, child, me);
  };
  for (const std::string& m : order)
    if (cube_parent(m).empty()) visit(visit, m, kNone);
  return tree;
}

// Cube's call tree: cnode 0 is the program, then wisp's call paths depth first; cnode of each slot.
struct CallTree {
  std::vector<std::uint32_t> cnode_of_slot;
  std::vector<CallpathId> callpath_of_cnode;  // kNone for the program root
};

CallTree call_tree(const Definitions& d) {
  std::vector<std::vector<CallpathId>> children(d.callpaths.size() + 1);  // by slot of the parent
  for (CallpathId c = 0; c < d.callpaths.size(); ++c) children[slot_of(d.callpaths[c].parent)].push_back(c);
  CallTree t;
  t.cnode_of_slot.assign(d.callpaths.size() + 1, 0);
  t.callpath_of_cnode.push_back(kNone);
  const auto visit = [&](auto&& self, CallpathId c) -> void {
    t.cnode_of_slot[slot_of(c)] = static_cast<std::uint32_t>(t.callpath_of_cnode.size());
    t.callpath_of_cnode.push_back(c);
    for (CallpathId child : children[slot_of(c)]) self(self, child);
  };
  for (CallpathId root : children[0]) visit(visit, root);
  return t;
}

// Location ids: per rank its master, then its other threads and streams.
std::vector<std::uint32_t> master_locations(const Definitions& d) {
  std::vector<std::uint32_t> out;
  std::uint32_t next = 0;
  for (const Location& rank : d.ranks) {
    out.push_back(next);
    next += 1 + static_cast<std::uint32_t>(rank.others.size());
  }
  out.push_back(next);  // the total
  return out;
}

std::string paradigm_of(RegionKind k) {
  if (is_mpi(k)) return "mpi";
  return k == RegionKind::Measurement ? "measurement" : "user";
}

void add_text(pugi::xml_node parent, const char* name, const std::string& text) {
  parent.append_child(name).append_child(pugi::node_pcdata).set_value(text.c_str());
}

void add_metrics(pugi::xml_node cube, const MetricTree& tree) {
  pugi::xml_node metrics = cube.append_child("metrics");
  std::vector<pugi::xml_node> nodes;
  for (std::size_t m = 0; m < tree.names.size(); ++m) {
    pugi::xml_node parent = tree.parent[m] == kNone ? metrics : nodes[tree.parent[m]];
    pugi::xml_node x = parent.append_child("metric");
    x.append_attribute("id") = static_cast<unsigned>(m);
    x.append_attribute("type") = "EXCLUSIVE";
    const MetricInfo* info = find_metric(tree.names[m]);
    add_text(x, "disp_name", std::string(display_name(tree.names[m])));
    add_text(x, "uniq_name", tree.names[m]);
    add_text(x, "dtype", "DOUBLE");
    add_text(x, "uom", info ? std::string(info->unit) : "");
    add_text(x, "url", "");
    add_text(x, "descr", info ? std::string(info->description) : "");
    nodes.push_back(x);
  }
}

void add_program(pugi::xml_node cube, const TraceSummary& trace, const CallTree& calls) {
  const Definitions& d = trace.defs;
  pugi::xml_node program = cube.append_child("program");
  const auto program_region = static_cast<unsigned>(d.regions.size());
  for (std::size_t r = 0; r <= d.regions.size(); ++r) {
    const bool root = r == d.regions.size();
    pugi::xml_node x = program.append_child("region");
    x.append_attribute("id") = static_cast<unsigned>(r);
    x.append_attribute("mod") = root ? "" : d.regions[r].file.c_str();
    x.append_attribute("begin") = root || d.regions[r].begin_line == 0 ? -1 : static_cast<int>(d.regions[r].begin_line);
    x.append_attribute("end") = root || d.regions[r].end_line == 0 ? -1 : static_cast<int>(d.regions[r].end_line);
    // The root: the program's file name, its path as the mangled name (as Score-P's cubes have it).
    const std::string path = d.program_name.empty() ? "program" : d.program_name;
    const std::string name = root ? std::filesystem::path(path).filename().string() : d.regions[r].name;
    add_text(x, "name", name.empty() ? path : name);
    add_text(x, "mangled_name", root ? path : d.regions[r].canonical_name.empty() ? name : d.regions[r].canonical_name);
    add_text(x, "paradigm", root ? "measurement" : paradigm_of(d.regions[r].kind));
    add_text(x, "role", root ? "artificial" : "function");
    add_text(x, "url", "");
    add_text(x, "descr", "");
  }
  std::vector<pugi::xml_node> nodes(calls.callpath_of_cnode.size());
  for (std::uint32_t n = 0; n < calls.callpath_of_cnode.size(); ++n) {
    const CallpathId c = calls.callpath_of_cnode[n];
    pugi::xml_node parent = c == kNone ? program : nodes[calls.cnode_of_slot[slot_of(d.callpaths[c].parent)]];
    pugi::xml_node x = parent.append_child("cnode");
    x.append_attribute("id") = n;
    x.append_attribute("calleeId") = c == kNone ? program_region : d.callpaths[c].region;
    nodes[n] = x;
  }
}

pugi::xml_node add_location(pugi::xml_node group, std::uint32_t id, const std::string& name, std::uint32_t rank,
                            const char* type) {
  pugi::xml_node x = group.append_child("location");
  x.append_attribute("Id") = id;
  add_text(x, "name", name);
  add_text(x, "rank", std::to_string(rank));
  add_text(x, "type", type);
  return x;
}

void add_system(pugi::xml_node cube, const Definitions& d, const std::vector<std::uint32_t>& masters) {
  pugi::xml_node machine = cube.append_child("system").append_child("systemtreenode");
  machine.append_attribute("Id") = 0;
  add_text(machine, "name", "machine");
  add_text(machine, "class", "machine");
  std::map<std::string, pugi::xml_node> nodes;
  for (Rank r = 0; r < d.ranks.size(); ++r) {
    const Location& rank = d.ranks[r];
    auto [it, added] = nodes.try_emplace(rank.node);
    if (added) {
      it->second = machine.append_child("systemtreenode");
      it->second.append_attribute("Id") = static_cast<unsigned>(nodes.size());
      add_text(it->second, "name", rank.node.empty() ? "node" : rank.node);
      add_text(it->second, "class", "node");
    }
    pugi::xml_node group = it->second.append_child("locationgroup");
    group.append_attribute("Id") = r;
    add_text(group, "name", rank.group_name.empty() ? fmt::format("MPI Rank {}", r) : rank.group_name);
    add_text(group, "rank", std::to_string(r));
    add_text(group, "type", "process");
    add_location(group, masters[r], rank.name, 0, "thread");
    for (std::uint32_t k = 0; k < rank.others.size(); ++k)
      add_location(group, masters[r] + 1 + k, rank.others[k].name, k + 1,
                   rank.others[k].kind == LocationKind::CpuThread ? "thread" : "accelerator");
  }
}

// CubeLib's anchor grammar (4.8.2, which cube_info, cube_dump and CubeGUI parse with) ends only
// <attr>, <parameter> and <dim> with "/>"; every other element needs its end tag (a leaf
// `<cnode id="3" calleeId="2"/>` is a syntax error there): an empty one gets an empty text.
void close_empty_elements(pugi::xml_node node) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    const std::string_view name = child.name();
    if (child.first_child())
      close_empty_elements(child);
    else if (name != "attr" && name != "parameter" && name != "dim")
      child.append_child(pugi::node_pcdata);
  }
}

std::string anchor_xml(const TraceSummary& trace, const MetricTree& metrics, const CallTree& calls,
                       const std::vector<std::uint32_t>& masters, const std::string& creator) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  pugi::xml_node cube = doc.append_child("cube");
  cube.append_attribute("version") = "4.5";
  for (const auto& [key, value] : {std::pair<const char*, std::string>{"Creator", creator},
                                   {"CUBE_CT_AGGR", "SUM"},
                                   {"Cube anchor.xml syntax version", "4.5"}}) {
    pugi::xml_node a = cube.append_child("attr");
    a.append_attribute("key") = key;
    a.append_attribute("value") = value.c_str();
  }
  add_metrics(cube, metrics);
  add_program(cube, trace, calls);
  add_system(cube, trace.defs, masters);
  std::ostringstream out;
  close_empty_elements(cube);
  doc.save(out, " ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// <id>.index: every cnode, in id order (Cube's sparse index of the cnodes that have values).
std::string index_file(std::uint32_t cnodes) {
  std::string out = "CUBEX.INDEX";
  put<std::int32_t>(out, 1);   // endianness check
  put<std::uint16_t>(out, 0);  // version
  put<std::uint8_t>(out, 1);   // sparse
  put<std::uint32_t>(out, cnodes);
  for (std::uint32_t n = 0; n < cnodes; ++n) put<std::uint32_t>(out, n);
  return out;
}

std::string data_file(const std::vector<double>& values) {
  std::string out = "CUBEX.DATA";
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  return out;
}

}  // namespace

MetricTable cube_table(const TraceSummary& trace, const TraceAnalysis& analysis) {
  MetricTable table = analysis.table;
  if (analysis.pag)
    for (const MbmRow& r : analysis.pag->mbm) {  // activities of no call path (the launch): the program root
      const CallpathId c = r.callpath < trace.defs.callpaths.size() ? r.callpath : kNone;
      add_record(table, "mbm_k", c, 0, analysis.pag->pag.seconds(r.mbm_k));
      add_record(table, "mbm_all", c, 0, analysis.pag->pag.seconds(r.mbm_all));
    }
  if (analysis.waits)
    for (const WaitEstimateRow& r : analysis.waits->rows)
      add_record(table, "estimated_wait", r.callpath, r.rank, r.estimated);
  if (!analysis.pop) return table;
  const PopFactors& pop = analysis.pop->whole;
  for (const auto& [name, value] : {std::pair<std::string_view, double>{"parallel_efficiency", pop.parallel_efficiency},
                                    {"load_balance", pop.load_balance},
                                    {"communication_efficiency", pop.communication_efficiency},
                                    {"serialisation", pop.serialisation},
                                    {"transfer", pop.transfer}})
    add_record(table, name, kNone, 0, value);
  if (const auto& h = analysis.pop->hybrid)
    for (const auto& [name, value] :
         {std::pair<std::string_view, double>{"hybrid_parallel_efficiency", h->hybrid_parallel_efficiency},
          {"mpi_parallel_efficiency", h->mpi_parallel_efficiency},
          {"mpi_load_balance", h->mpi_load_balance},
          {"mpi_communication_efficiency", h->mpi_communication_efficiency},
          {"openmp_parallel_efficiency", h->openmp_parallel_efficiency}})
      add_record(table, name, kNone, 0, value);
  return table;
}

MetricTable difference_table(const TraceSummary& identity_trace, const MetricTable& identity,
                             const TraceSummary& scenario_trace, const MetricTable& scenario, std::size_t& missing) {
  using Key = std::tuple<std::string, std::string, Rank>;  // metric, call path name, rank
  std::map<Key, double> values;
  std::map<std::string, CallpathId> scenario_paths;
  for (CallpathId c = 0; c < scenario_trace.defs.callpaths.size(); ++c)
    scenario_paths[scenario_trace.defs.callpath_name(c)] = c;
  scenario_paths[""] = kNone;
  for (const MetricRecord& r : scenario.records)
    values[{scenario.metrics[r.metric], metric_callpath_name(scenario_trace.defs, r.callpath), r.rank}] += r.value;
  missing = 0;
  for (const MetricRecord& r : identity.records) {
    const std::string path = metric_callpath_name(identity_trace.defs, r.callpath);
    if (!scenario_paths.count(path)) {
      ++missing;
      continue;
    }
    values[{identity.metrics[r.metric], path, r.rank}] -= r.value;
  }
  MetricTable out;
  for (const std::string& m : scenario.metrics) metric_index(out, m);
  for (const std::string& m : identity.metrics) metric_index(out, m);
  for (const auto& [key, value] : values)
    add_record(out, std::get<0>(key), scenario_paths.at(std::get<1>(key)), std::get<2>(key), value);
  return out;
}

std::string write_cube(const std::filesystem::path& file, const TraceSummary& trace, const MetricTable& table,
                       const std::string& creator) {
  const MetricTree metrics = metric_tree(table);
  const CallTree calls = call_tree(trace.defs);
  const std::vector<std::uint32_t> masters = master_locations(trace.defs);
  const std::size_t locations = masters.back(), cnodes = calls.callpath_of_cnode.size();
  std::vector<std::vector<double>> own(metrics.names.size(), std::vector<double>(cnodes * locations, 0.0));
  std::uint64_t non_finite = 0;
  std::string first_non_finite;
  std::vector<std::size_t> cube_metric;  // by table metric index: its index in the cube's tree
  for (const std::string& name : table.metrics)
    cube_metric.push_back(
        static_cast<std::size_t>(std::find(metrics.names.begin(), metrics.names.end(), name) - metrics.names.begin()));
  for (const MetricRecord& r : table.records) {
    const std::size_t m = cube_metric[r.metric];
    if (r.rank >= trace.rank_count() || m == metrics.names.size()) continue;
    double v = r.value;
    if (!std::isfinite(v)) {
      if (non_finite++ == 0) first_non_finite = table.metrics[r.metric];
      v = 0;
    }
    // Activities of no call path (the PAG's launch and gaps) belong to the program root.
    const std::uint32_t slot = r.callpath < trace.defs.callpaths.size() ? slot_of(r.callpath) : 0;
    own[m][calls.cnode_of_slot[slot] * locations + masters[r.rank]] += v;
  }
  std::vector<TarMember> members{{"anchor.xml", anchor_xml(trace, metrics, calls, masters, creator)}};
  for (std::size_t m = 0; m < metrics.names.size(); ++m) {
    members.push_back({fmt::format("{}.index", m), index_file(static_cast<std::uint32_t>(cnodes))});
    members.push_back({fmt::format("{}.data", m), data_file(own[m])});  // metric-inclusive, as CubeLib reads it
  }
  write_file_atomically(file, [&](std::ostream& out) { write_tar(out, members); });
  if (!non_finite) return "";
  return fmt::format("{}: {} value(s) that are not finite (first in {}) written as 0: Cube cannot hold them",
                     file.string(), non_finite, first_non_finite);
}

}  // namespace wisp
