// The Chrome Trace Event document of timelines (chrome_trace.hpp), written with fmt: a trace of a
// million events gives a million records, which a JSON tree would hold several times over. Each
// record is short: the region as its name, the call path as a reference to a stack frame written
// once, times as microseconds with at most three decimals and no trailing zeros, a category only
// for MPI calls (the stack frame has it too).
#include "wisp/report/chrome_trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "wisp/io/json_text.hpp"

namespace wisp {

namespace {

std::string quoted(const std::string& s) { return json_text(nlohmann::json(s)); }

// Seconds as microseconds to the nanosecond: 1.5e-6 -> "1.5", 2e-6 -> "2", -3e-9 -> "-0.003".
long long nanoseconds(double seconds) { return std::llround(seconds * 1e9); }

// Microseconds with up to three decimals, from whole nanoseconds.
void append_ns(std::string& out, long long ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  fmt::format_to(std::back_inserter(out), "{}", ns / 1000);
  int frac = static_cast<int>(ns % 1000);
  if (frac == 0) return;
  int digits = 3;
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  fmt::format_to(std::back_inserter(out), ".{:0{}}", frac, digits);
}

void append_us(std::string& out, double seconds) { append_ns(out, nanoseconds(seconds)); }

void metadata(std::string& out, int pid, const std::string& name, const std::vector<TimelineLane>& lanes) {
  fmt::format_to(
      std::back_inserter(out),
      "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}},\n"
      "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_index\":{}}}}},\n",
      pid, quoted(name), pid, pid);
  for (std::size_t k = 0; k < lanes.size(); ++k)
    fmt::format_to(
        std::back_inserter(out),
        "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}},\n"
        "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}},\n",
        pid, k, quoted(lanes[k].name), pid, k, k);
}

// Timelines with the same labels (the simulated ones keep the measured trace's call paths) share
// their stack frames: `frame_base[p]` is the id of timeline p's label 0.
bool same_labels(const Timeline& a, const Timeline& b) {
  if (a.labels.size() != b.labels.size()) return false;
  for (std::size_t i = 0; i < a.labels.size(); ++i)
    if (a.labels[i].region != b.labels[i].region || a.labels[i].parent != b.labels[i].parent ||
        a.labels[i].mpi != b.labels[i].mpi)
      return false;
  return true;
}

std::vector<std::size_t> frame_bases(const std::vector<NamedTimeline>& timelines) {
  std::vector<std::size_t> base(timelines.size());
  std::size_t next = 1;
  for (std::size_t p = 0; p < timelines.size(); ++p) {
    base[p] = next;
    for (std::size_t q = 0; q < p; ++q)
      if (same_labels(*timelines[q].timeline, *timelines[p].timeline)) base[p] = base[q];
    if (base[p] == next) next += timelines[p].timeline->labels.size();
  }
  return base;
}

// "stackFrames": {"id": {"name": region, "category": "mpi" or "computation", "parent": "id"}}.
void stack_frames(std::string& out, const std::vector<NamedTimeline>& timelines, const std::vector<std::size_t>& base) {
  out += "\"stackFrames\":{";
  bool first = true;
  for (std::size_t p = 0; p < timelines.size(); ++p) {
    bool written_before = false;
    for (std::size_t q = 0; q < p; ++q) written_before |= base[q] == base[p];
    if (written_before) continue;
    const std::vector<TimelineLabel>& labels = timelines[p].timeline->labels;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      fmt::format_to(std::back_inserter(out), "{}\n\"{}\":{{\"name\":{},\"category\":\"{}\"", first ? "" : ",",
                     base[p] + i, quoted(labels[i].region), labels[i].mpi ? "mpi" : "computation");
      if (labels[i].parent < labels.size())
        fmt::format_to(std::back_inserter(out), ",\"parent\":\"{}\"", base[p] + labels[i].parent);
      out += '}';
      first = false;
    }
  }
  out += "},\n";
}

void intervals(std::string& out, int pid, const Timeline& t, std::size_t frame_base,
               const std::vector<std::string>& regions) {
  for (std::size_t k = 0; k < t.lanes.size(); ++k) {
    const TimelineLane& lane = t.lanes[k];
    for (std::size_t i = 0; i < lane.start.size(); ++i) {
      const std::uint32_t label = lane.label[i];
      fmt::format_to(std::back_inserter(out), "{{\"name\":{},{}\"ph\":\"X\",\"ts\":", regions[label],
                     t.labels[label].mpi ? "\"cat\":\"mpi\"," : "");
      // Both ends rounded, the duration their difference: consecutive slices never overlap.
      const long long start = nanoseconds(lane.start[i]);
      append_ns(out, start);
      out += ",\"dur\":";
      append_ns(out, nanoseconds(lane.end[i]) - start);
      fmt::format_to(std::back_inserter(out), ",\"pid\":{},\"tid\":{},\"sf\":{}", pid, k, frame_base + label);
      if (lane.wait[i] > 0 || lane.critical[i]) {
        out += ",\"args\":{";
        if (lane.wait[i] > 0) {
          out += "\"wait_us\":";
          append_us(out, lane.wait[i]);
        }
        if (lane.critical[i]) out += lane.wait[i] > 0 ? ",\"critical\":1" : "\"critical\":1";
        out += '}';
      }
      out += "},\n";
    }
  }
}

// A message: a flow from the send record on the sender's lane to the receive on the receiver's.
void flows(std::string& out, int pid, const Timeline& t, std::uint64_t& id) {
  std::vector<std::size_t> lane_of(t.ranks.size(), 0);
  for (std::size_t k = 0; k < t.lanes.size(); ++k)
    if (t.lanes[k].master && t.lanes[k].rank < lane_of.size()) lane_of[t.lanes[k].rank] = k;
  for (const TimelineMessage& m : t.messages) {
    ++id;
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":{},\"ts\":", id);
    append_us(out, m.send);
    fmt::format_to(std::back_inserter(out),
                   ",\"pid\":{},\"tid\":{},\"args\":{{\"bytes\":{}}}}},\n"
                   "{{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{},\"ts\":",
                   pid, lane_of[m.sender], m.bytes, id);
    append_us(out, m.recv);
    fmt::format_to(std::back_inserter(out), ",\"pid\":{},\"tid\":{}}},\n", pid, lane_of[m.receiver]);
  }
}

}  // namespace

std::string chrome_trace_json(const std::vector<NamedTimeline>& timelines) {
  const std::vector<std::size_t> base = frame_bases(timelines);
  std::string out = "{\"displayTimeUnit\":\"ns\",";
  stack_frames(out, timelines, base);
  out += "\"traceEvents\":[\n";
  std::uint64_t flow_id = 0;
  for (std::size_t p = 0; p < timelines.size(); ++p) {
    const Timeline& t = *timelines[p].timeline;
    const int pid = static_cast<int>(p) + 1;
    std::vector<std::string> regions;  // quoted once per label
    for (const TimelineLabel& l : t.labels) regions.push_back(quoted(l.region));
    metadata(out, pid, timelines[p].name, t.lanes);
    intervals(out, pid, t, base[p], regions);
    flows(out, pid, t, flow_id);
  }
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, ",\n") == 0) out.erase(out.size() - 2, 1);
  out += "]}\n";
  return out;
}

}  // namespace wisp
