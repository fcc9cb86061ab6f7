/* SMPI's time-independent replay as a program of our own, compiled with smpicc against Debian's
 * SimGrid: each rank replays its trace file (line <rank> of the -replay index) and prints the
 * simulated time at which it finished, to the nanosecond (SMPI's own line has microseconds). */
#include <mpi.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char* argv[]) {
  const char* instance = sg_actor_get_property_value(sg_actor_self(), "instance_id");
  const int rank = atoi(sg_actor_get_property_value(sg_actor_self(), "rank"));
  smpi_replay_init(instance, rank, 0.0);
  smpi_replay_main(rank, argc > 1 ? argv[1] : NULL);
  fprintf(stderr, "wisp-ti-replay: rank %d finished at %.9f\n", rank, simgrid_get_clock());
  return 0;
}
