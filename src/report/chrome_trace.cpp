// The Chrome Trace Event document of timelines (chrome_trace.hpp), written with fmt: a trace of a
// million events gives a million records, which a JSON tree would hold several times over.
#include "wisp/report/chrome_trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace wisp {

namespace {

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }
double us(double seconds) { return seconds * 1e6; }

void metadata(std::string& out, int pid, const std::string& name, const std::vector<TimelineLane>& lanes) {
  fmt::format_to(std::back_inserter(out),
                 "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}},\n"
                 "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_index\":{}}}}},\n",
                 pid, quoted(name), pid, pid);
  for (std::size_t k = 0; k < lanes.size(); ++k)
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}},\n"
                   "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}},\n",
                   pid, k, quoted(lanes[k].name), pid, k, k);
}

void intervals(std::string& out, int pid, const Timeline& t, const std::vector<std::string>& names,
               const std::vector<std::string>& regions) {
  for (std::size_t k = 0; k < t.lanes.size(); ++k) {
    const TimelineLane& lane = t.lanes[k];
    for (std::size_t i = 0; i < lane.start.size(); ++i) {
      const TimelineLabel& label = t.labels[lane.label[i]];
      fmt::format_to(std::back_inserter(out),
                     "{{\"name\":{},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},\"pid\":{},\"tid\":{},"
                     "\"args\":{{\"callpath\":{}",
                     regions[lane.label[i]], label.mpi ? "mpi" : "computation", us(lane.start[i]),
                     us(lane.end[i] - lane.start[i]), pid, k, names[lane.label[i]]);
      if (lane.wait[i] > 0) fmt::format_to(std::back_inserter(out), ",\"wait_us\":{:.3f}", us(lane.wait[i]));
      if (lane.critical[i]) out += ",\"critical_path\":true";
      out += "}},\n";
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
                   "{{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":{},\"ts\":{:.3f},\"pid\":{},\"tid\":{},"
                   "\"args\":{{\"bytes\":{}}}}},\n"
                   "{{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{},\"ts\":{:.3f},\"pid\":{},"
                   "\"tid\":{}}},\n",
                   id, us(m.send), pid, lane_of[m.sender], m.bytes, id, us(m.recv), pid, lane_of[m.receiver]);
  }
}

}  // namespace

std::string chrome_trace_json(const std::vector<NamedTimeline>& timelines) {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  std::uint64_t flow_id = 0;
  for (std::size_t p = 0; p < timelines.size(); ++p) {
    const Timeline& t = *timelines[p].timeline;
    const int pid = static_cast<int>(p) + 1;
    std::vector<std::string> names, regions;  // quoted once per label
    for (const TimelineLabel& l : t.labels) {
      names.push_back(quoted(l.name));
      regions.push_back(quoted(l.region));
    }
    metadata(out, pid, timelines[p].name, t.lanes);
    intervals(out, pid, t, names, regions);
    flows(out, pid, t, flow_id);
  }
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, ",\n") == 0) out.erase(out.size() - 2, 1);
  out += "]}\n";
  return out;
}

}  // namespace wisp
