/*
 * wallclock.c -- the daemon's one reading of the wall clock, in ns since
 * the epoch: what results, states and alerts are stamped with.  A file of
 * its own at the bottom of the daemon's calls, so that the cycle, the
 * alerts and retention all call down to it and never into each other.
 */
#include <time.h>

#include "daemon.h"

uint64_t
daemon_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
