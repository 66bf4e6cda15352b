/*
 * faultvfs.h -- a disk that fills up on demand, for the store's tests: a
 * SQLite VFS over the default one whose writes fail with SQLITE_FULL
 * while faultvfs_full is set (what a full file system gives a COMMIT),
 * and writes to the main database files alone with SQLITE_IOERR_WRITE
 * while faultvfs_db_failing is set (the WAL takes commits; checkpoints,
 * which copy it into the file, fail); while faultvfs_ckpt_busy is set, the
 * WAL's checkpoint lock is refused SQLITE_BUSY (as when another connection
 * runs a checkpoint): checkpoints return busy.
 */
#ifndef SCALEPROBE_FAULTVFS_H
#define SCALEPROBE_FAULTVFS_H

#include <stdbool.h>

extern volatile bool faultvfs_full;
extern volatile bool faultvfs_db_failing;
extern volatile bool faultvfs_ckpt_busy;
extern volatile unsigned long faultvfs_refused;	/* writes failed so far */
extern volatile unsigned long faultvfs_busied;	/* checkpoint locks refused */

/* Registers the VFS as the default one; 0 or -1. */
int faultvfs_install(void);

#endif
