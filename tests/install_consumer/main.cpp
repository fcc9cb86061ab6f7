// Uses the installed wisp: generates a trace in memory and prints its rank and event counts.
#include <cstdio>

#include "generators/generators.hpp"
#include "wisp/trace/trace.hpp"

int main() {
  wisp::gen::ImbalanceOptions o;
  o.ranks = 3;
  o.iterations = 2;
  const wisp::Trace t = wisp::gen::generate_imbalance(o);
  std::printf("ranks=%u events=%llu\n", t.rank_count(), static_cast<unsigned long long>(t.event_count()));
  return t.rank_count() == 3 ? 0 : 1;
}
