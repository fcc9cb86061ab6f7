// Scenario -> YAML text. See scenario_writer.hpp.
#include "wisp/scenario/scenario_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "wisp/analysis/metric_catalogue.hpp"

namespace wisp {

namespace {

namespace fs = std::filesystem;

// Doubles in their shortest exact form, so that a reread file gives the same value.
std::string number(double v) { return fmt::format("{}", v); }
std::string absolute_path(const fs::path& p) { return fs::absolute(p).lexically_normal().string(); }

void emit_selection(YAML::Emitter& e, const Selection& s) {
  if (!s.region.empty()) e << YAML::Key << "region" << YAML::Value << YAML::DoubleQuoted << s.region;
  if (!s.callpath.empty()) e << YAML::Key << "callpath" << YAML::Value << YAML::DoubleQuoted << s.callpath;
  if (!s.ranks_text.empty()) e << YAML::Key << "ranks" << YAML::Value << YAML::DoubleQuoted << s.ranks_text;
  if (s.iterations)
    e << YAML::Key << "iterations" << YAML::Value << YAML::Flow << YAML::BeginSeq << s.iterations->first
      << s.iterations->second << YAML::EndSeq;
  if (s.time)
    e << YAML::Key << "time" << YAML::Value << YAML::Flow << YAML::BeginSeq << number(s.time->first)
      << number(s.time->second) << YAML::EndSeq;
}

void emit_factors(YAML::Emitter& e, const PlatformChange& c) {
  if (c.speed_factor != 1) e << YAML::Key << "speed_factor" << YAML::Value << number(c.speed_factor);
  if (c.latency_factor != 1) e << YAML::Key << "latency_factor" << YAML::Value << number(c.latency_factor);
  if (c.bandwidth_factor != 1) e << YAML::Key << "bandwidth_factor" << YAML::Value << number(c.bandwidth_factor);
  if (!c.file.empty()) e << YAML::Key << "file" << YAML::Value << absolute_path(c.file);
  if (c.latency) e << YAML::Key << "latency" << YAML::Value << number(*c.latency);
  if (c.bandwidth) e << YAML::Key << "bandwidth" << YAML::Value << number(*c.bandwidth);
  if (c.overhead) e << YAML::Key << "overhead" << YAML::Value << number(*c.overhead);
}

void emit_transform_options(YAML::Emitter& e, const Transform& t) {
  switch (t.kind) {
    case TransformKind::Rebalance:
      emit_selection(e, t.select);
      e << YAML::Key << "mode" << YAML::Value << to_string(t.mode);
      if (t.across_threads) e << YAML::Key << "across" << YAML::Value << "threads";
      break;
    case TransformKind::Scale:
      emit_selection(e, t.select);
      e << YAML::Key << "factor" << YAML::Value << number(t.factor);
      break;
    case TransformKind::Set:
      emit_selection(e, t.select);
      e << YAML::Key << "seconds" << YAML::Value << number(t.seconds);
      break;
    case TransformKind::Zero:
      if (t.communication)
        e << YAML::Key << "communication" << YAML::Value << true;
      else
        emit_selection(e, t.select);
      break;
    case TransformKind::Move:
      e << YAML::Key << "from" << YAML::Value << YAML::BeginMap;
      emit_selection(e, t.select);
      e << YAML::EndMap << YAML::Key << "to" << YAML::Value << YAML::BeginMap;
      emit_selection(e, t.to);
      e << YAML::EndMap << YAML::Key << "fraction" << YAML::Value << number(t.fraction);
      break;
    case TransformKind::Platform:
      emit_factors(e, t.platform);
      break;
    case TransformKind::Placement:
      e << YAML::Key << "hostfile" << YAML::Value << absolute_path(t.hostfile);
      break;
  }
}

void emit_transform(YAML::Emitter& e, const Transform& t) {
  if (t.kind == TransformKind::Placement && t.hostfile.empty()) {
    e << YAML::BeginMap << YAML::Key << "placement" << YAML::Value << std::string(to_string(t.placement))
      << YAML::EndMap;
    return;
  }
  e << YAML::BeginMap << YAML::Key << to_string(t.kind) << YAML::Value << YAML::Flow << YAML::BeginMap;
  emit_transform_options(e, t);
  e << YAML::EndMap << YAML::EndMap;
}

void emit_platform(YAML::Emitter& e, const PlatformSpec& p) {
  e << YAML::Key << "platform" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (p.kind == PlatformSpec::Kind::File) {
    e << YAML::Key << "file" << YAML::Value << absolute_path(p.file);
    if (p.hosts) e << YAML::Key << "nodes" << YAML::Value << p.hosts;
    if (p.cores != 1) e << YAML::Key << "cores" << YAML::Value << p.cores;
  }
  if (p.kind == PlatformSpec::Kind::Generated) {
    e << YAML::Key << "hosts" << YAML::Value << p.hosts << YAML::Key << "speed" << YAML::Value << number(p.speed)
      << YAML::Key << "latency" << YAML::Value << number(p.latency) << YAML::Key << "bandwidth" << YAML::Value
      << number(p.bandwidth) << YAML::Key << "topology" << YAML::Value << p.topology;
    if (!p.parameters.empty()) e << YAML::Key << "parameters" << YAML::Value << YAML::DoubleQuoted << p.parameters;
    e << YAML::Key << "overhead" << YAML::Value << number(p.overhead) << YAML::Key << "eager_threshold" << YAML::Value
      << p.eager_threshold << YAML::Key << "contention" << YAML::Value << p.contention;
    if (p.cores != 1) e << YAML::Key << "cores" << YAML::Value << p.cores;
    if (p.intra) {
      e << YAML::Key << "intra" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "latency" << YAML::Value
        << number(p.intra->latency) << YAML::Key << "bandwidth" << YAML::Value << number(p.intra->bandwidth);
      if (p.intra_overhead) e << YAML::Key << "overhead" << YAML::Value << number(*p.intra_overhead);
      e << YAML::EndMap;
    }
  }
  if (!p.intra_file.empty())
    e << YAML::Key << "intra" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
      << absolute_path(p.intra_file) << YAML::EndMap;
  emit_factors(e, p.change);
  e << YAML::EndMap;
}

void emit_replay(YAML::Emitter& e, const ReplaySpec& r) {
  e << YAML::Key << "replay" << YAML::Value << YAML::Flow << YAML::BeginMap;
  e << YAML::Key << "costs" << YAML::Value << r.costs;
  if (r.eager_threshold) e << YAML::Key << "eager_threshold" << YAML::Value << *r.eager_threshold;
  if (!r.collectives.empty()) {
    e << YAML::Key << "collectives" << YAML::Value << YAML::BeginMap;
    for (const auto& [op, algorithm] : r.collectives) e << YAML::Key << op << YAML::Value << algorithm;
    e << YAML::EndMap;
  }
  if (!r.hostfile.empty()) e << YAML::Key << "hostfile" << YAML::Value << absolute_path(r.hostfile);
  if (r.placement != Placement::Traced)
    e << YAML::Key << "placement" << YAML::Value << std::string(to_string(r.placement));
  if (!r.interval) e << YAML::Key << "interval" << YAML::Value << false;
  e << YAML::EndMap;
}

void emit_trace(YAML::Emitter& e, const TraceSource& t) {
  e << YAML::Key << "trace" << YAML::Value;
  if (t.generate.empty())
    e << absolute_path(t.path);
  else
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "generate" << YAML::Value << YAML::DoubleQuoted << t.generate
      << YAML::EndMap;
}

}  // namespace

std::string scenario_yaml(const Scenario& s, const std::vector<std::string>& comments) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "wisp" << YAML::Value << 1;
  e << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << s.name;
  if (!s.description.empty()) e << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << s.description;
  emit_trace(e, s.trace);
  emit_platform(e, s.platform);
  emit_replay(e, s.replay);
  if (!s.transforms.empty()) {
    e << YAML::Key << "transforms" << YAML::Value << YAML::BeginSeq;
    for (const Transform& t : s.transforms) emit_transform(e, t);
    e << YAML::EndSeq;
  }
  if (s.analyses != analysis_keys()) e << YAML::Key << "analyses" << YAML::Value << YAML::Flow << s.analyses;
  e << YAML::EndMap;
  std::string text;
  for (const std::string& c : comments) text += "# " + c + "\n";
  return text + e.c_str() + "\n";
}

}  // namespace wisp
