// What a platform change can move. See platform_reach.hpp.
#include "wisp/scenario/platform_reach.hpp"

#include "wisp/scenario/network_scaling.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace wisp {

bool changes_platform(const Scenario& s) {
  // A placement moves calls between the networks inside and between nodes when a calibration
  // prices the one inside.
  const bool two_networks = !s.platform.intra_file.empty();
  for (const Transform& t : s.transforms)
    if (t.kind == TransformKind::Platform || (two_networks && t.kind == TransformKind::Placement)) return true;
  for (const SweepAxis& a : s.sweep)
    if (a.key.rfind("platform.", 0) == 0 || (two_networks && a.key.find("placement") != std::string::npos)) return true;
  return false;
}

std::optional<PlatformReach> platform_reach(const std::optional<ResidualSummary>& residuals) {
  if (!residuals) return std::nullopt;
  const ResidualClass all = residuals->total();
  if (!(all.traced > 0)) return std::nullopt;
  const ResidualClass& init = residuals->by_class[static_cast<int>(CallClass::InitFinalize)];
  PlatformReach r;
  r.traced = all.traced;
  r.init_finalize = init.traced;
  r.network = all.network - init.network;
  r.waiting = all.waiting - init.waiting;
  r.residual = std::max(0.0, all.traced - r.init_finalize - r.network - r.waiting);
  r.typical = std::min(residuals->typical_excess, r.residual);
  return r;
}

std::string platform_reach_text(const PlatformReach& r) {
  return fmt::format(
      "platform changes act on the network's part of the traced MPI time, transfer and per-message work: "
      "{:.6f} s of {:.6f} s ({:.1f} %); the rest: waiting for partners {:.6f} s (re-derived by the replay), "
      "MPI_Init and MPI_Finalize {:.6f} s (kept as traced), residual no network explains {:.6f} s (kept as "
      "measured{})",
      r.network, r.traced, 100 * r.share(), r.waiting, r.init_finalize, r.residual,
      r.typical > 0
          ? fmt::format(", but for the network's typical part, {:.6f} s (its excess over the fastest transfer, the "
                        "eager sends' copy and the collectives' rounds; on a network typed in numbers, the share its "
                        "latency and bandwidth hold), which the target's replaces",
                        r.typical)
          : std::string());
}

std::string platform_reach_warning(const PlatformReach& r) {
  if (r.explained() >= 0.5) return {};
  const std::string typical =
      r.typical > 0 ? fmt::format(", {:.3f} s of it the network's typical part in the residual", r.typical) : "";
  return fmt::format(
      "the network model explains {:.0f} % of what the MPI calls cost beside waiting ({:.3f} s of {:.3f} s{}): a "
      "platform change moves only that part, the residual {:.3f} s is kept as measured (software, scheduling, noise)",
      100 * r.explained(), r.network + r.typical, r.network + r.residual, typical, r.residual - r.typical);
}

std::string one_size_source_warning(const Platform& p) {
  if (p.network_one_size == 0) return {};
  const std::optional<NetworkNumbers> n = network_numbers(p);  // a file's links (mean route), read again
  return fmt::format(
      "the platform change starts from a network fitted on one message size ({} bytes{}), which cannot tell the "
      "network from the transport's protocol and software (the local work of ranks that send at once, a "
      "rendezvous handshake): the change can lie outside the gain interval; describe the traced machine too, "
      "`platform: {{file: "
      "...}}` with its microbenchmark's `wisp calibrate`",
      p.network_one_size, n ? fmt::format(", its fastest transfer {:.3f} us as latency", n->latency * 1e6) : "");
}

std::vector<std::string> ideal_network_lines(const std::optional<double>& pop, const std::optional<double>& fast,
                                             double identity) {
  std::vector<std::string> lines;
  auto line = [&](const char* what, const std::optional<double>& runtime) {
    if (runtime)
      lines.push_back(fmt::format("ideal network {}: {:.6f} s ({:+.6f} s against the identity)", what, *runtime,
                                  *runtime - identity));
  };
  line("(POP's T_ideal) transfers and MPI calls take no time", pop);
  line("infinitely fast, calls keep their software cost", fast);
  return lines;
}

}  // namespace wisp
