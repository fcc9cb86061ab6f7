// Helpers shared by the generators. See common.hpp.
#include "generators/common.hpp"

#include "wisp/error.hpp"

namespace wisp::gen {

std::vector<double> launch_times(const CommonOptions& o, std::uint32_t ranks) {
  std::vector<double> t(ranks, 0.0);
  if (o.launch_jitter <= 0) return t;
  std::mt19937_64 rng(o.seed ^ 0x6c61756e6368ull);
  std::uniform_real_distribution<double> u(0.0, o.launch_jitter);
  for (auto& x : t) x = u(rng);
  return t;
}

void apply_launch_jitter(Model& model, const CommonOptions& o) {
  const auto t = launch_times(o, model.rank_count());
  for (Rank r = 0; r < model.rank_count(); ++r) model.set_launch(r, t[r]);
}

void require(bool ok, const char* kind, const std::string& what) {
  if (!ok) throw Error(std::string("generate ") + kind + ": " + what);
}

}  // namespace wisp::gen
