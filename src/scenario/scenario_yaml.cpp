// Scenario files: YAML -> Scenario with every problem reported as "file:line:column: what".
// The parsed document is first normalised (shorthands expanded to maps) so that sweeps can set
// any value by a dotted key and re-parse.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include <cmath>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/error.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/scenario/closest_names.hpp"
#include "wisp/scenario/scenario.hpp"
#include "yaml_bounds.hpp"

namespace wisp {

namespace fs = std::filesystem;

const std::vector<std::string>& run_output_names() {
  static const std::vector<std::string> names{"report.json",        "report.txt",     "report.html",
                                              "report-window.html", "identity-trace", "scenario-trace",
                                              "identity.cubex",     "scenario.cubex", "difference.cubex"};
  return names;
}

std::string Where::str() const { return fmt::format("{}:{}:{}", file, line, column); }

std::string to_string(TransformKind kind) {
  switch (kind) {
    case TransformKind::Rebalance:
      return "rebalance";
    case TransformKind::Scale:
      return "scale";
    case TransformKind::Set:
      return "set";
    case TransformKind::Zero:
      return "zero";
    case TransformKind::Move:
      return "move";
    case TransformKind::Platform:
      return "platform";
    case TransformKind::Placement:
      return "placement";
  }
  return "?";
}

std::string to_string(RebalanceMode mode) {
  switch (mode) {
    case RebalanceMode::Instance:
      return "instance";
    case RebalanceMode::Total:
      return "total";
    case RebalanceMode::Callpaths:
      return "callpaths";
  }
  return "?";
}

namespace {

struct Parser {
  std::string file;    // as given, for messages
  fs::path directory;  // relative paths are anchored here
  // Nodes made by normalise() ("- rebalance: work" expanded) have no place in the file: they are
  // reported at the place of the item that holds them.
  mutable std::optional<Where> enclosing;

  Where at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.line < 0 && enclosing) return *enclosing;
    return Where{file, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& what) const { throw Error(at(n).str() + ": " + what); }

  // A mapping key as text; keys that are lists or maps (YAML's `? [a]: 1`) are refused.
  std::string key_of(const YAML::Node& key) const {
    if (!key.IsScalar()) fail(key, "a key must be a plain name, not a list or map");
    return key.Scalar();
  }

  void only_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& context) const {
    if (!map.IsMap()) fail(map, context + " must be a mapping (key: value)");
    for (const auto& kv : map) {
      const std::string key = key_of(kv.first);
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      if (key == "<<")
        fail(kv.first, fmt::format("merge keys (<<) are not supported in {}: write the keys out, or reuse a whole "
                                   "block with an alias (key: *name)",
                                   context));
      const auto close = closest_names(key, allowed, 3);
      fail(kv.first, fmt::format("unknown key '{}' in {}{}", shortened(key), context,
                                 close.empty() ? fmt::format(" (known: {})", fmt::join(allowed, ", "))
                                               : fmt::format(" (did you mean '{}'?)", close.front())));
    }
  }

  // A number as YAML reads it (any magnitude, NaN and inf included); the checks below bound it.
  double any_number(const YAML::Node& n, const std::string& what) const {
    try {
      return n.as<double>();
    } catch (const YAML::Exception&) {
      fail(n, fmt::format("{} must be a number, not '{}'", what, n.IsScalar() ? n.Scalar() : "a list or map"));
    }
  }
  // Every number is finite and at most kLargest: beyond that, simulated times lose their
  // precision or overflow.
  static constexpr double kLargest = 1e9;
  double number(const YAML::Node& n, const std::string& what) const {
    const double v = any_number(n, what);
    if (!std::isfinite(v)) fail(n, fmt::format("{} must be a finite number (got {})", what, n.Scalar()));
    if (std::abs(v) > kLargest) fail(n, fmt::format("{} must be at most {:g} (got {:g})", what, kLargest, v));
    return v;
  }
  double non_negative(const YAML::Node& n, const std::string& what) const {
    const double v = number(n, what);
    if (v < 0) fail(n, fmt::format("{} must not be negative (got {})", what, v));
    return v;
  }
  double positive(const YAML::Node& n, const std::string& what) const {
    const double v = number(n, what);
    if (!(v > 0)) fail(n, fmt::format("{} must be positive (got {})", what, v));
    return v;
  }
  // Rates (flop/s, bytes/s) may exceed kLargest; they still must be finite and positive.
  double rate(const YAML::Node& n, const std::string& what) const {
    const double v = any_number(n, what);
    if (!std::isfinite(v) || !(v >= 1) || v > 1e21)
      fail(n, fmt::format("{} must be a finite rate between 1 and 1e21 per second (got {})", what, n.Scalar()));
    return v;
  }
  std::string text(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + " must be a text value");
    return n.Scalar();
  }
  fs::path path(const YAML::Node& n, const std::string& what) const {
    const fs::path p = text(n, what);
    return p.is_absolute() ? p : directory / p;
  }
  // Files the scenario names are read (by `check`) when it is parsed, so that a missing or malformed
  // one is reported at its place before any replay (a platform's own errors name its line too).
  template <typename Check>
  fs::path checked_file(const YAML::Node& n, const std::string& what, Check check) const {
    const fs::path named = path(n, what);
    try {
      check(named);
    } catch (const Error& e) {
      fail(n, e.what());
    }
    return named;
  }
  fs::path platform_file(const YAML::Node& n) const {
    return checked_file(n, "platform file", [](const fs::path& f) { load_platform(f); });
  }
  fs::path hostfile(const YAML::Node& n) const {
    return checked_file(n, "hostfile", [](const fs::path& f) { read_hostfile(f); });
  }

  // "10-20" or [10, 20] -> inclusive range.
  std::pair<std::uint32_t, std::uint32_t> iteration_range(const YAML::Node& n) const {
    double lo = 0, hi = 0;
    if (n.IsSequence() && n.size() == 2) {
      lo = non_negative(n[0], "iterations");
      hi = non_negative(n[1], "iterations");
    } else if (n.IsScalar()) {
      const std::string s = n.Scalar();
      const auto dash = s.find('-');
      try {
        lo = std::stod(s.substr(0, dash));
        hi = dash == std::string::npos ? lo : std::stod(s.substr(dash + 1));
      } catch (const std::exception&) {
        fail(n, fmt::format("iterations '{}' is not a range like 10-20", s));
      }
    } else {
      fail(n, "iterations must be a range like 10-20 or [10, 20]");
    }
    constexpr double kMax = std::numeric_limits<std::uint32_t>::max();  // checked before any cast
    if (!(lo >= 0) || !(hi >= lo) || hi > kMax || lo != std::floor(lo) || hi != std::floor(hi))
      fail(n, fmt::format("iterations {}-{} is not a valid range (whole numbers, first <= last)", lo, hi));
    return {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi)};
  }

  std::pair<double, double> time_range(const YAML::Node& n) const {
    if (!n.IsSequence() || n.size() != 2) fail(n, "time must be [start, end] in seconds");
    const double lo = non_negative(n[0], "time start");
    const double hi = non_negative(n[1], "time end");
    if (hi < lo) fail(n, fmt::format("time range [{}, {}] ends before it starts", lo, hi));
    return {lo, hi};
  }

  static const std::vector<std::string>& selection_keys() {
    static const std::vector<std::string> keys{"region", "callpath", "ranks", "iterations", "time"};
    return keys;
  }

  void selection_into(const YAML::Node& n, Selection& s) const {
    s.where = at(n);
    if (n["region"]) s.region = text(n["region"], "region");
    if (n["callpath"]) s.callpath = text(n["callpath"], "callpath");
    if (n["ranks"]) {
      const YAML::Node r = n["ranks"];
      if (r.IsSequence()) {
        for (const auto& x : r) s.ranks_text += (s.ranks_text.empty() ? "" : ",") + text(x, "ranks");
      } else {
        s.ranks_text = text(r, "ranks");
      }
      if (s.ranks_text.empty()) fail(r, "ranks is empty");
    }
    if (n["iterations"]) s.iterations = iteration_range(n["iterations"]);
    if (n["time"]) s.time = time_range(n["time"]);
  }

  PlatformChange platform_change(const YAML::Node& n) const {
    PlatformChange c;
    if (n["speed_factor"]) c.speed_factor = positive(n["speed_factor"], "speed_factor");
    if (n["latency_factor"]) c.latency_factor = non_negative(n["latency_factor"], "latency_factor");
    if (n["bandwidth_factor"]) c.bandwidth_factor = positive(n["bandwidth_factor"], "bandwidth_factor");
    if (n["file"]) c.file = platform_file(n["file"]);
    if (n["latency"]) c.latency = non_negative(n["latency"], "latency");
    if (n["bandwidth"]) c.bandwidth = rate(n["bandwidth"], "bandwidth");
    if (n["overhead"]) c.overhead = non_negative(n["overhead"], "overhead");
    return c;
  }

  Transform transform(const YAML::Node& item) const {
    if (!item.IsMap() || item.size() != 1)
      fail(item,
           "a transform is one of rebalance, scale, set, zero, move, platform, placement with its "
           "options, e.g. '- scale: {region: work, factor: 0.5}'");
    const auto kv = *item.begin();
    const std::string kind = key_of(kv.first);
    const YAML::Node p = kv.second;
    Transform t;
    t.where = at(item);
    enclosing = t.where;
    auto sel_keys = selection_keys();
    const auto with = [&](std::initializer_list<const char*> extra) {
      auto keys = sel_keys;
      keys.insert(keys.end(), extra.begin(), extra.end());
      return keys;
    };
    const std::string context = fmt::format("transform '{}'", kind);
    if (kind == "rebalance") {
      t.kind = TransformKind::Rebalance;
      only_keys(p, with({"mode", "across"}), context);
      selection_into(p, t.select);
      if (p["mode"]) {
        const std::string mode = text(p["mode"], "mode");
        if (mode == "instance")
          t.mode = RebalanceMode::Instance;
        else if (mode == "total")
          t.mode = RebalanceMode::Total;
        else if (mode == "callpaths")
          t.mode = RebalanceMode::Callpaths;
        else
          fail(p["mode"], fmt::format("rebalance mode must be instance, total or callpaths (got '{}')", mode));
      }
      if (p["across"]) {
        const std::string across = text(p["across"], "across");
        if (across != "ranks" && across != "threads")
          fail(p["across"], fmt::format("rebalance across must be ranks or threads (got '{}')", across));
        t.across_threads = across == "threads";
        if (t.across_threads && t.mode != RebalanceMode::Instance)
          fail(p["mode"], "rebalance across threads balances each instance");
      }
    } else if (kind == "scale") {
      t.kind = TransformKind::Scale;
      only_keys(p, with({"factor"}), context);
      selection_into(p, t.select);
      if (!p["factor"]) fail(p, "scale needs a factor");
      t.factor = non_negative(p["factor"], "factor");
    } else if (kind == "set") {
      t.kind = TransformKind::Set;
      only_keys(p, with({"seconds"}), context);
      selection_into(p, t.select);
      if (!p["seconds"]) fail(p, "set needs seconds (the new duration of each selected visit)");
      t.seconds = non_negative(p["seconds"], "seconds");
    } else if (kind == "zero") {
      t.kind = TransformKind::Zero;
      only_keys(p, with({"communication"}), context);
      selection_into(p, t.select);
      if (p["communication"]) {
        t.communication = p["communication"].as<bool>(false);
        if (!t.communication) fail(p["communication"], "communication must be true or absent");
        if (p.size() > 1) fail(p, "zero communication takes no region selection");
      } else if (t.select.region.empty() && t.select.callpath.empty()) {
        fail(p, "zero needs a region or callpath, or 'communication: true'");
      }
    } else if (kind == "move") {
      t.kind = TransformKind::Move;
      only_keys(p, {"from", "to", "fraction"}, context);
      if (!p["from"] || !p["to"] || !p["fraction"]) fail(p, "move needs from, to and fraction");
      only_keys(p["from"], sel_keys, "move 'from'");
      only_keys(p["to"], sel_keys, "move 'to'");
      selection_into(p["from"], t.select);
      selection_into(p["to"], t.to);
      t.fraction = non_negative(p["fraction"], "fraction");
      if (t.fraction > 1) fail(p["fraction"], fmt::format("fraction must be at most 1 (got {})", t.fraction));
    } else if (kind == "platform") {
      t.kind = TransformKind::Platform;
      only_keys(p, {"speed_factor", "latency_factor", "bandwidth_factor", "file", "latency", "bandwidth", "overhead"},
                context);
      t.platform = platform_change(p);
    } else if (kind == "placement") {
      t.kind = TransformKind::Placement;
      if (p.IsMap()) {
        only_keys(p, {"hostfile"}, context);
        if (!p["hostfile"]) fail(p, "placement is block, cyclic or {hostfile: FILE}");
        t.hostfile = hostfile(p["hostfile"]);
      } else {
        try {
          t.placement = placement_from_name(text(p, "placement"));
        } catch (const Error& e) {
          fail(p, e.what());
        }
      }
    } else {
      const auto close = closest_names(kind, {"rebalance", "scale", "set", "zero", "move", "platform", "placement"}, 1);
      fail(kv.first, fmt::format("unknown transform '{}'{}", kind,
                                 close.empty() ? " (known: rebalance, scale, set, zero, move, platform, placement)"
                                               : fmt::format(" (did you mean '{}'?)", close.front())));
    }
    return t;
  }

  // A whole number of things (hosts, cores): at least 1.
  std::uint32_t count(const YAML::Node& n, const char* what) const {
    const double v = positive(n, what);
    if (v != std::floor(v) || v > 1e7)
      fail(n, fmt::format("{} must be a whole number from 1 to 10000000 (got {})", what, v));
    return static_cast<std::uint32_t>(v);
  }

  // `intra`: the network inside a node in numbers, or a `wisp calibrate` file of it.
  void node_network(const YAML::Node& n, PlatformSpec& s) const {
    if (!n.IsMap())
      fail(n, "intra is the network inside a node, e.g. {latency: 0.3e-6, bandwidth: 10e9} or {file: shm.xml}");
    only_keys(n, {"latency", "bandwidth", "overhead", "file"}, "platform intra");
    if (n["file"]) {
      if (n["latency"] || n["bandwidth"] || n["overhead"])
        fail(n, "intra: give either a calibration file or latency and bandwidth, not both");
      s.intra_file = platform_file(n["file"]);
      return;
    }
    if (!n["latency"] || !n["bandwidth"]) fail(n, "intra needs latency and bandwidth (or a file)");
    s.intra =
        Platform::NodeNetwork{non_negative(n["latency"], "intra latency"), rate(n["bandwidth"], "intra bandwidth")};
    if (n["overhead"]) s.intra_overhead = non_negative(n["overhead"], "intra overhead");
  }

  // Generated keys beyond the machine's (nodes, cores, intra): the network and hosts in numbers.
  static bool generated_network(const YAML::Node& n) {
    return n["speed"] || n["latency"] || n["bandwidth"] || n["topology"] || n["parameters"] || n["overhead"] ||
           n["eager_threshold"] || n["contention"];
  }

  PlatformSpec platform(const YAML::Node& n) const {
    PlatformSpec s;
    s.where = at(n);
    only_keys(n,
              {"file", "hosts", "nodes", "cores", "intra", "speed", "latency", "bandwidth", "topology", "parameters",
               "overhead", "eager_threshold", "contention", "speed_factor", "latency_factor", "bandwidth_factor"},
              "platform");
    if (n["speed_factor"]) s.change.speed_factor = positive(n["speed_factor"], "speed_factor");
    if (n["latency_factor"]) s.change.latency_factor = non_negative(n["latency_factor"], "latency_factor");
    if (n["bandwidth_factor"]) s.change.bandwidth_factor = positive(n["bandwidth_factor"], "bandwidth_factor");
    if (n["hosts"] && n["nodes"]) fail(n, "platform: give nodes or hosts (the same thing), not both");
    const bool generated = n["hosts"] || n["nodes"] || n["cores"] || n["intra"] || n["speed"] || n["latency"] ||
                           n["bandwidth"] || n["topology"] || n["parameters"] || n["overhead"] ||
                           n["eager_threshold"] || n["contention"];
    // A calibration file describes a network: it takes nodes, cores and a network inside them.
    const bool machine = n["hosts"] || n["nodes"] || n["cores"] || n["intra"];
    if (n["file"] && generated && !machine) fail(n, "platform: give either a file or generated parameters, not both");
    if (n["hosts"]) s.hosts = count(n["hosts"], "hosts");
    if (n["nodes"]) s.hosts = count(n["nodes"], "nodes");
    if (n["cores"]) s.cores = count(n["cores"], "cores");
    if (n["intra"]) node_network(n["intra"], s);
    if (n["file"] && (generated_network(n) || s.intra))
      fail(n,
           "platform: a file takes nodes, cores and intra: {file} (a wisp calibrate file is the network between "
           "nodes), not numbers");
    if (n["file"]) {
      s.kind = PlatformSpec::Kind::File;
      s.file = platform_file(n["file"]);
    } else if (generated) {
      s.kind = PlatformSpec::Kind::Generated;
      if (n["speed"]) s.speed = rate(n["speed"], "speed");
      if (n["latency"]) s.latency = non_negative(n["latency"], "latency");
      if (n["bandwidth"]) s.bandwidth = rate(n["bandwidth"], "bandwidth");
      if (n["topology"]) s.topology = text(n["topology"], "topology");
      if (n["parameters"]) s.parameters = text(n["parameters"], "parameters");
      if (n["overhead"]) s.overhead = non_negative(n["overhead"], "overhead");
      if (n["eager_threshold"])
        s.eager_threshold = static_cast<std::uint64_t>(non_negative(n["eager_threshold"], "eager_threshold"));
      if (n["contention"]) {
        try {
          s.contention = n["contention"].as<bool>();
        } catch (const YAML::Exception&) {
          fail(n["contention"], "contention must be true or false");
        }
      }
    }
    return s;
  }

  ReplaySpec replay(const YAML::Node& n) const {
    ReplaySpec r;
    r.where = at(n);
    only_keys(n, {"costs", "eager_threshold", "collectives", "hostfile", "placement", "interval"}, "replay");
    if (n["interval"]) {
      if (!n["interval"].IsScalar() || (n["interval"].Scalar() != "true" && n["interval"].Scalar() != "false"))
        fail(n["interval"], "interval is true or false");
      r.interval = n["interval"].Scalar() == "true";
    }
    if (n["costs"]) {
      r.costs = text(n["costs"], "costs");
      if (r.costs != "anchored" && r.costs != "model") fail(n["costs"], "costs is anchored or model");
    }
    if (n["eager_threshold"])
      r.eager_threshold = static_cast<std::uint64_t>(non_negative(n["eager_threshold"], "eager_threshold"));
    if (n["collectives"]) {
      if (!n["collectives"].IsMap())
        fail(n["collectives"], "collectives maps operations to algorithms, e.g. {allreduce: ring}");
      for (const auto& kv : n["collectives"]) r.collectives[key_of(kv.first)] = text(kv.second, "algorithm");
    }
    if (n["hostfile"]) r.hostfile = hostfile(n["hostfile"]);
    if (n["placement"]) {
      if (n["hostfile"]) fail(n["placement"], "replay: give a placement or a hostfile, not both");
      const std::string name = text(n["placement"], "placement");
      try {
        r.placement = placement_from_name(name);
      } catch (const Error& e) {
        fail(n["placement"], e.what());
      }
    }
    return r;
  }

  std::vector<SweepAxis> sweep(const YAML::Node& n) const {
    if (!n.IsMap()) fail(n, "sweep maps keys to lists of values, e.g. {platform.bandwidth_factor: [0.5, 1, 2]}");
    std::vector<SweepAxis> axes;
    for (const auto& kv : n) {
      if (key_of(kv.first) == "design") continue;  // sweep_design
      SweepAxis a;
      a.key = key_of(kv.first);
      a.where = at(kv.first);
      if (!kv.second.IsSequence() || kv.second.size() == 0)
        fail(kv.second, fmt::format("sweep axis '{}' needs a non-empty list of values", a.key));
      for (const auto& v : kv.second) a.values.push_back(v);
      check_files(a);
      axes.push_back(a);
    }
    return axes;
  }

  SweepDesign sweep_design(const YAML::Node& n, const std::vector<SweepAxis>& axes) const {
    if (!n.IsMap() || !n["design"]) return SweepDesign::Cartesian;
    const std::string d = text(n["design"], "design");
    if (d == "cartesian") return SweepDesign::Cartesian;
    if (d == "one-at-a-time") return SweepDesign::OneAtATime;
    if (d != "zipped")
      fail(n["design"], fmt::format("unknown sweep design '{}' (known: cartesian, one-at-a-time, zipped)", d));
    for (const SweepAxis& a : axes)
      if (a.values.size() != axes.front().values.size())
        fail(n, fmt::format("a zipped sweep takes the axes' values position by position: '{}' has {} values, '{}' {}",
                            axes.front().key, axes.front().values.size(), a.key, a.values.size()));
    return SweepDesign::Zipped;
  }

  // A network in absolute numbers replaces a crossbar's latency and bandwidth one at a time; any
  // other platform (a file, another topology) becomes a crossbar and needs both (with_network).
  static void check_absolute_networks(const Scenario& s) {
    bool crossbar = s.platform.kind != PlatformSpec::Kind::File && s.platform.topology == "crossbar";
    for (const Transform& t : s.transforms) {
      if (t.kind != TransformKind::Platform) continue;
      if (!t.platform.file.empty()) crossbar = false;
      const PlatformChange& c = t.platform;
      if (c.absolute() && !crossbar && !(c.latency && c.bandwidth))
        throw Error(t.where.str() +
                    ": platform: latency and bandwidth go together here: the platform is a file or another topology "
                    "than a crossbar, so the network given in absolute numbers replaces it as a crossbar");
      if (c.latency && c.bandwidth) crossbar = true;
    }
  }

  // A sweep over files (platform.file, transforms[i].file, replay.hostfile) names each at its value.
  void check_files(const SweepAxis& a) const {
    const std::string last = a.key.substr(a.key.find_last_of('.') + 1);
    for (const YAML::Node& v : a.values) {
      if (last == "file") platform_file(v);
      if (last == "hostfile") hostfile(v);
    }
  }

  // Expands shorthands so that every value a sweep may set lives in a map.
  static void normalise(YAML::Node root) {
    YAML::Node p = root["platform"];
    if (p && p.IsScalar()) {
      const std::string v = p.Scalar();
      YAML::Node m(YAML::NodeType::Map);
      if (v != "calibrated") m["file"] = v;
      root["platform"] = m;
    }
    YAML::Node ts = root["transforms"];
    if (ts && ts.IsSequence())
      for (std::size_t i = 0; i < ts.size(); ++i) {
        YAML::Node item = ts[i];
        if (item.IsMap() && item.size() == 1 && item.begin()->first.IsScalar() && item.begin()->second.IsScalar()) {
          const std::string kind = item.begin()->first.Scalar();
          const std::string value = item.begin()->second.Scalar();
          if (kind == "placement") continue;  // "- placement: block" is the placement's own form
          YAML::Node m(YAML::NodeType::Map);
          if (kind == "zero" && value == "communication")
            m["communication"] = true;
          else
            m["region"] = value;  // "- rebalance: work"
          item[kind] = m;
        }
      }
  }

  Scenario scenario(YAML::Node root) const {
    if (!root || root.IsNull()) throw Error(file + ":1:1: the scenario is empty (start with 'wisp: 1')");
    if (!root.IsMap()) fail(root, "a scenario is a mapping of keys (wisp, trace, transforms, ...)");
    only_keys(root,
              {"wisp", "name", "description", "trace", "platform", "replay", "transforms", "sweep", "analyses",
               "output", "export"},
              "the scenario");
    if (!root["wisp"]) fail(root, "missing required key 'wisp' (the schema version: write 'wisp: 1')");
    if (!root["wisp"].IsScalar() || root["wisp"].Scalar() != "1")
      fail(root["wisp"],
           fmt::format("wisp: {} is not a schema version this wisp reads (it reads wisp: 1)",
                       root["wisp"].IsScalar() ? shortened(root["wisp"].Scalar()) : std::string("a list or map")));
    if (!root["trace"]) fail(root, "missing required key 'trace' (an OTF2 trace, or {generate: ...})");
    // `platform: FILE` becomes a map without a place in the file: its errors are reported at the value.
    const std::optional<Where> platform_at =
        root["platform"] && root["platform"].IsScalar() ? std::optional<Where>(at(root["platform"])) : std::nullopt;
    normalise(root);
    Scenario s;
    s.file = fs::path(file);
    s.source = root;
    s.name = root["name"] ? text(root["name"], "name") : fs::path(file).stem().string();
    if (root["description"]) s.description = text(root["description"], "description");
    const YAML::Node t = root["trace"];
    s.trace.where = at(t);
    if (t.IsScalar()) {
      s.trace.path = path(t, "trace");
    } else {
      only_keys(t, {"path", "generate"}, "trace");
      if (t["path"] && t["generate"]) fail(t, "trace: give either a path or generate, not both");
      if (t["path"])
        s.trace.path = path(t["path"], "trace path");
      else if (t["generate"])
        s.trace.generate = text(t["generate"], "generate");
      else
        fail(t, "trace needs a path or generate");
    }
    if (root["platform"]) {
      enclosing = platform_at;
      s.platform = platform(root["platform"]);
      enclosing.reset();
    }
    if (root["replay"]) s.replay = replay(root["replay"]);
    if (root["transforms"]) {
      const YAML::Node ts = root["transforms"];
      if (!ts.IsSequence()) fail(ts, "transforms is a list (each item starts with '- ')");
      for (const auto& item : ts) s.transforms.push_back(transform(item));
      check_absolute_networks(s);
    }
    if (root["sweep"]) {
      s.sweep = sweep(root["sweep"]);
      if (s.sweep.empty()) fail(root["sweep"], "sweep needs at least one axis besides its design");
      s.sweep_design = sweep_design(root["sweep"], s.sweep);
    }
    if (root["analyses"]) {
      const YAML::Node a = root["analyses"];
      if (!a.IsSequence()) fail(a, "analyses is a list, e.g. [wait_states, critical_path]");
      for (const auto& x : a) {
        const std::string name = text(x, "analysis");
        const auto& known = analysis_keys();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          const auto close = closest_names(name, known, 1);
          fail(x, fmt::format("unknown analysis '{}'{}", name,
                              close.empty() ? fmt::format(" (known: {})", fmt::join(known, ", "))
                                            : fmt::format(" (did you mean '{}'?)", close.front())));
        }
        s.analyses.push_back(name);
      }
    } else {
      s.analyses = analysis_keys();
    }
    if (root["output"]) s.output = path(root["output"], "output");
    if (root["export"]) s.exports = exports(root["export"]);
    return s;
  }

  // export: {smpi-ti: DIR, goal: FILE, collectives: actions|messages, time_unit: ns|ps}; the
  // paths are inside the run's output directory.
  std::vector<ExportRequest> exports(const YAML::Node& n) const {
    only_keys(n, {"smpi-ti", "goal", "collectives", "time_unit"}, "export");
    auto choice = [&](const char* key, const std::string& first, const std::string& second) {
      if (!n[key]) return false;
      const std::string v = text(n[key], key);
      if (v != first && v != second)
        fail(n[key], fmt::format("export {}: '{}' is not {} or {}", key, v, first, second));
      return v == second;
    };
    const bool messages = choice("collectives", "actions", "messages");
    const bool ps = choice("time_unit", "ns", "ps");
    std::vector<ExportRequest> out;
    for (const char* format : {"smpi-ti", "goal"}) {
      if (!n[format]) continue;
      const fs::path p = text(n[format], format);
      if (p.empty() || p.is_absolute() || p.lexically_normal().string().rfind("..", 0) == 0)
        fail(n[format],
             fmt::format("export {}: '{}' must be a relative path inside the output directory", format, p.string()));
      const std::string first = p.lexically_normal().begin()->string();
      const auto& own = run_output_names();
      if (std::find(own.begin(), own.end(), first) != own.end())
        fail(n[format], fmt::format("export {}: '{}' is where wisp run writes its own {}: choose another path", format,
                                    p.string(), first));
      for (const ExportRequest& other : out)
        if (other.path.lexically_normal() == p.lexically_normal())
          fail(n[format], fmt::format("export {}: '{}' is the {} export's path too", format, p.string(), other.format));
      out.push_back(ExportRequest{format, p, messages, ps});
    }
    if (out.empty()) fail(n, "export names no format (smpi-ti: DIR or goal: FILE)");
    return out;
  }
};

// yaml-cpp keeps both entries of a repeated key and lookups see the first: a scenario that says
// `{factor: 0.5, factor: 2}` must not silently mean 0.5.
void refuse_duplicate_keys(const YAML::Node& n, const std::string& file) {
  if (n.IsSequence())
    for (const auto& item : n) refuse_duplicate_keys(item, file);
  if (!n.IsMap()) return;
  std::map<std::string, YAML::Mark> seen;
  for (const auto& kv : n) {
    if (kv.first.IsScalar()) {
      const auto [it, fresh] = seen.emplace(kv.first.Scalar(), kv.first.Mark());
      if (!fresh)
        throw Error(fmt::format("{}:{}:{}: duplicate key '{}' (first at line {})", file, kv.first.Mark().line + 1,
                                kv.first.Mark().column + 1, kv.first.Scalar(), it->second.line + 1));
    }
    refuse_duplicate_keys(kv.second, file);
  }
}

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(fmt::format("{}:{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  check_yaml_bounds(root, file);  // before any walk: the others assume a bounded tree
  refuse_duplicate_keys(root, file);
  return root;
}

}  // namespace

Scenario parse_scenario(const std::string& text, const fs::path& file) {
  Parser p{file.string(), file.has_parent_path() ? file.parent_path() : fs::path("."), {}};
  try {
    return p.scenario(parse_yaml(text, file.string()));
  } catch (const YAML::Exception& e) {  // a conversion no check above foresaw: still one line
    throw Error(fmt::format("{}:{}:{}: {}", file.string(), e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

// A scenario is a small text file; anything else (a directory, /dev/zero, a trace named by
// mistake) is refused before it is read.
constexpr std::uintmax_t kLargestScenario = 1 << 20;

// A trace where a scenario was expected (`wisp run TRACE`): the commands that take a trace.
std::string trace_given(const fs::path& trace) {
  return fmt::format(
      "{0}: is an OTF2 trace, not a scenario file: `wisp suggest {0}` proposes scenarios for it that `wisp run` "
      "takes (`wisp simulate` replays a trace, `wisp analyze` analyses it; a scenario names its trace as `trace: "
      "FILE`, scenarios/README.md)",
      trace.string());
}

Scenario load_scenario(const fs::path& file) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (file.extension() == ".otf2" && fs::exists(st)) throw Error(trace_given(file));
  if (fs::is_directory(st) && fs::exists(file / "traces.otf2")) throw Error(trace_given(file / "traces.otf2"));
  if (fs::is_directory(st)) throw Error(file.string() + ": is a directory, not a scenario file");
  if (!fs::exists(st)) throw Error(file.string() + ": cannot read the scenario file: no such file");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw Error(file.string() + ": is not a regular file (a scenario is a YAML text file)");
  if (fs::is_regular_file(st) && fs::file_size(file, ec) > kLargestScenario)
    throw Error(fmt::format("{}: {} bytes is too large for a scenario file (at most 1 MiB)", file.string(),
                            fs::file_size(file, ec)));
  errno = 0;
  const auto text = read_file(file);
  if (!text)
    throw Error(file.string() + ": cannot read the scenario file" +
                (errno ? std::string(": ") + std::strerror(errno) : ""));
  return parse_scenario(*text, file);
}

// ---------------------------------------------------------------------------------------------
// Sweeps

namespace {

// The node a dotted key ("platform.bandwidth_factor", "transforms[0].factor") designates; the
// last map level is created if missing. A transform item's single kind key may be skipped.
YAML::Node locate(YAML::Node root, const SweepAxis& axis) {
  std::vector<std::string> parts;
  std::stringstream in(axis.key);
  std::string part;
  while (std::getline(in, part, '.')) parts.push_back(part);
  const auto bad = [&](const std::string& why) -> Error {
    return Error(axis.where.str() + ": sweep key '" + axis.key + "': " + why);
  };
  YAML::Node node;
  node.reset(root);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string name = parts[i];
    std::optional<std::size_t> index;
    if (const auto open = name.find('['); open != std::string::npos) {
      const auto close = name.find(']', open);
      if (close == std::string::npos) throw bad("unclosed [");
      try {
        index = std::stoul(name.substr(open + 1, close - open - 1));
      } catch (const std::exception&) {
        throw bad("the index in [] must be a number");
      }
      name = name.substr(0, open);
    }
    const bool last = i + 1 == parts.size() && !index;
    if (!node.IsMap()) throw bad("'" + name + "' is not inside a mapping");
    if (!node[name] && !last) throw bad("the scenario has no '" + name + "'");
    if (last) return node[name];
    // Node assignment copies content in yaml-cpp; reset() moves the handle down the tree.
    node.reset(node[name]);
    if (index) {
      if (!node.IsSequence() || *index >= node.size()) throw bad(fmt::format("'{}' has no item {}", name, *index));
      node.reset(node[*index]);
      // transforms[i].factor: step into the transform's options.
      if (node.IsMap() && node.size() == 1 && i + 1 < parts.size() && !node[parts[i + 1]])
        node.reset(node.begin()->second);
      if (i + 1 == parts.size()) return node;
    }
  }
  return node;
}

// An error in a sweep point: the point's document is a copy without places in the file (its nodes
// report 0:0 or 1:1; the base scenario parsed, so the error comes from a value the sweep set), so
// it is reported at the sweep key that set it (the one whose last part the message quotes, else the first).
Error sweep_error(const Scenario& base, const std::string& what, const std::string& point) {
  std::string why;
  for (const char* place : {":0:0: ", ":1:1: "})
    if (const std::string prefix = base.file.string() + place; what.rfind(prefix, 0) == 0)
      why = what.substr(prefix.size());
  if (why.empty() || base.sweep.empty()) return Error(what);
  const SweepAxis* axis = &base.sweep.front();
  for (const SweepAxis& a : base.sweep) {
    const std::string last = a.key.substr(a.key.find_last_of('.') + 1);
    if (why.find("'" + last + "'") != std::string::npos) axis = &a;
  }
  return Error(fmt::format("{}: sweep key '{}' (at the point {}): {}", axis->where.str(), axis->key, point, why));
}

}  // namespace

std::vector<std::vector<std::size_t>> sweep_points(const Scenario& s) {
  if (s.sweep_design != SweepDesign::Cartesian) {
    std::vector<std::vector<std::size_t>> points;
    for (std::size_t a = 0; a < s.sweep.size(); ++a)
      for (std::size_t v = 0; v < s.sweep[a].values.size(); ++v) {
        if (s.sweep_design == SweepDesign::Zipped && a > 0) return points;
        std::vector<std::size_t> point(s.sweep.size(), s.sweep_design == SweepDesign::Zipped ? v : kUnset);
        point[a] = v;
        points.push_back(std::move(point));
      }
    return points;
  }
  std::vector<std::vector<std::size_t>> points{{}};
  for (const auto& axis : s.sweep) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& p : points)
      for (std::size_t v = 0; v < axis.values.size(); ++v) {
        auto q = p;
        q.push_back(v);
        next.push_back(q);
      }
    points = std::move(next);
  }
  return points;
}

Scenario sweep_point(const Scenario& base, const std::vector<std::size_t>& value_index) {
  YAML::Node doc = YAML::Clone(base.source);
  doc.remove("sweep");
  std::string suffix;
  for (std::size_t a = 0; a < base.sweep.size(); ++a) {
    const SweepAxis& axis = base.sweep[a];
    if (value_index.at(a) == kUnset) continue;
    YAML::Node target = locate(doc, axis);
    target = YAML::Clone(axis.values.at(value_index.at(a)));
    suffix += fmt::format("{}{}={}", suffix.empty() ? "" : ",", axis.key, YAML::Dump(axis.values[value_index[a]]));
  }
  Parser p{base.file.string(), base.file.has_parent_path() ? base.file.parent_path() : fs::path("."), {}};
  Scenario s;
  try {
    s = p.scenario(doc);
  } catch (const Error& e) {
    throw sweep_error(base, e.what(), suffix);
  }
  s.name = base.name + "[" + suffix + "]";
  s.output = base.output;
  return s;
}

}  // namespace wisp
