/*
 * clockwatch.h -- the daemon's view of its clock's synchronisation
 * (clockwatch.c): asked at start and every minute on a thread, read for
 * each run it begins.
 */
#ifndef SCALEPROBE_CLOCKWATCH_H
#define SCALEPROBE_CLOCKWATCH_H

#include "clocksync.h"

void clockwatch_start(void);
void clockwatch_stop(void);
enum clock_sync clockwatch_now(void);

#endif
