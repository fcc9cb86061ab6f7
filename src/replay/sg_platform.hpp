// Builds the SimGrid platform of a wisp Platform (XML file or generated topology) inside the
// simulation process, applies the what-if factors, and lists the hosts in natural name order.
#pragma once

#include <simgrid/s4u.hpp>

#include <string>
#include <vector>

#include "wisp/replay/platform.hpp"

namespace wisp::replay_impl {

// The SimGrid settings that make transfers take exactly latency + size / bandwidth (see
// src/replay/README.md, "SimGrid settings"), then `settings` ("KEY:VALUE", ReplayOptions::
// simgrid_config); must run before the platform is built.
void configure_engine(const std::vector<std::string>& settings);

// Builds the platform; `ranks` sizes a crossbar without an explicit host count. With
// `zero_latency` every link latency becomes 0 (ReplayOptions::zero_communication).
std::vector<simgrid::s4u::Host*> build_platform(simgrid::s4u::Engine& engine, const Platform& p, std::uint32_t ranks,
                                                bool zero_latency);

// "node-2" < "node-10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace wisp::replay_impl
