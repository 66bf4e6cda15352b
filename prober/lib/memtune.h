/*
 * memtune.h -- the process's malloc settings for a long walk over a list:
 * what keeps its resident memory at what it holds.
 */
#ifndef SCALEPROBE_MEMTUNE_H
#define SCALEPROBE_MEMTUNE_H

/* Blocks of MEMTUNE_MMAP_MIN bytes or more get a mapping of their own,
 * given back whole when freed, for the whole run (glibc; elsewhere
 * nothing).  Call before the first allocation that matters. */
#define MEMTUNE_MMAP_MIN (128 * 1024)
void memtune_fixed_mmap(void);

#endif
