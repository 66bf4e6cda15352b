/*
 * memtune.c -- the malloc setting of memtune.h.
 *
 * glibc raises its mmap threshold to the size of each mapped block freed
 * (up to 32 MiB), so after the first streamed chunk of a list is freed,
 * the next chunks' arrays (a MiB or so each) come from the heap instead,
 * and the holes they leave among the long-lived small blocks (the
 * duplicate set's buckets, the store's pages) stay resident.  Setting the
 * threshold fixes it at MEMTUNE_MMAP_MIN.  Measured with tests/bench/
 * list-bench's daemon cycle over 1,048,576 targets: the heap held 22.5 MiB
 * at the peak with the moving threshold, 8.0 MiB of heap plus 7.5 MiB of
 * mapped blocks with it fixed.
 */
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "memtune.h"

void
memtune_fixed_mmap(void)
{
#ifdef __GLIBC__
	(void)mallopt(M_MMAP_THRESHOLD, MEMTUNE_MMAP_MIN);
#endif
}
