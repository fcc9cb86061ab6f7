// `wisp analyze TRACE [--partitions FILE] [--json] [-o DIR]`: wait states, critical path with
// imbalance and performance impact, delay costs, as text tables or JSON.
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "wisp/analysis/analyze.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/report/analysis_report.hpp"

namespace wisp::cli {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read partitions file '" + path + "'");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  struct Options {
    std::string trace;
    std::string partitions;
    std::string output;
    bool json = false;
    bool force = false;
    std::size_t top = 8;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "wait states, critical path (imbalance, performance impact), delay costs of a trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it")->required();
  cmd->add_option("--partitions", o->partitions,
                  "partition file: lines 'name: ranks' (default: derived from user call paths)");
  cmd->add_flag("--json", o->json, "print JSON instead of text");
  cmd->add_option("-o,--output", o->output, "also write analysis.json and analysis.txt into this directory");
  cmd->add_flag("--force", o->force, "replace an existing output directory");
  cmd->add_option("--top", o->top, "call paths listed per metric in the text output")->capture_default_str();
  cmd->callback([o] {
    const Trace trace = read_otf2(o->trace);
    AnalyzeOptions options;
    if (!o->partitions.empty())
      options.partitions = parse_partitions(read_text(o->partitions), o->partitions, trace.rank_count());
    const Analysis analysis = analyze(trace, options);
    const MetricTable table = metric_table(analysis);
    const std::string json = analysis_json(trace, o->trace, analysis, table).dump(1);
    const std::string text = analysis_text(trace, o->trace, analysis, table, o->top);
    if (!o->output.empty()) {
      AtomicDirectory dir(o->output, o->force);
      write_file_atomically(dir.staging() / "analysis.json", json + "\n");
      write_file_atomically(dir.staging() / "analysis.txt", text);
      dir.commit();
    }
    std::printf("%s", o->json ? (json + "\n").c_str() : text.c_str());
  });
}

}  // namespace wisp::cli
