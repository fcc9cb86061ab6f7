// What `wisp info` reports about a trace: ranks, events by kind, regions, communicators,
// duration, messages, collectives, anomalies and skipped records; as text and as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "wisp/trace/trace.hpp"

namespace wisp {


nlohmann::json trace_info_json(const Trace& trace, const std::string& source);
std::string trace_info_text(const Trace& trace, const std::string& source);

}  // namespace wisp
