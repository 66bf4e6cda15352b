/*
 * faultvfs.c -- faultvfs.h's VFS: every call goes to the default VFS and
 * its files, except writes while faultvfs_full is set, and writes to a
 * main database file while faultvfs_db_failing is, and the WAL's
 * checkpoint lock while faultvfs_ckpt_busy is.
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "faultvfs.h"

volatile bool faultvfs_full;
volatile bool faultvfs_db_failing;
volatile bool faultvfs_ckpt_busy;
volatile unsigned long faultvfs_refused;
volatile unsigned long faultvfs_busied;

/* wal.c's WAL_CKPT_LOCK: the shm lock a checkpoint takes first */
#define CKPT_LOCK	1

static sqlite3_vfs *real;
static sqlite3_vfs fault;

struct ffile {
	sqlite3_file base;
	sqlite3_file *real;	/* right after this struct */
	bool main_db;
};

#define R(f)	(((struct ffile *)(f))->real)

static int
f_close(sqlite3_file *f)
{
	return R(f)->pMethods->xClose(R(f));
}

static int
f_read(sqlite3_file *f, void *b, int n, sqlite3_int64 off)
{
	return R(f)->pMethods->xRead(R(f), b, n, off);
}

static int
f_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 off)
{
	if (faultvfs_full) {
		faultvfs_refused++;
		return SQLITE_FULL;
	}
	if (faultvfs_db_failing && ((struct ffile *)f)->main_db) {
		faultvfs_refused++;
		return SQLITE_IOERR_WRITE;
	}
	return R(f)->pMethods->xWrite(R(f), b, n, off);
}

static int
f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return R(f)->pMethods->xTruncate(R(f), size);
}

static int
f_sync(sqlite3_file *f, int flags)
{
	return R(f)->pMethods->xSync(R(f), flags);
}

static int
f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return R(f)->pMethods->xFileSize(R(f), size);
}

static int
f_lock(sqlite3_file *f, int l)
{
	return R(f)->pMethods->xLock(R(f), l);
}

static int
f_unlock(sqlite3_file *f, int l)
{
	return R(f)->pMethods->xUnlock(R(f), l);
}

static int
f_reserved(sqlite3_file *f, int *out)
{
	return R(f)->pMethods->xCheckReservedLock(R(f), out);
}

static int
f_control(sqlite3_file *f, int op, void *arg)
{
	return R(f)->pMethods->xFileControl(R(f), op, arg);
}

static int
f_sector(sqlite3_file *f)
{
	return R(f)->pMethods->xSectorSize(R(f));
}

static int
f_chars(sqlite3_file *f)
{
	return R(f)->pMethods->xDeviceCharacteristics(R(f));
}

static int
f_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **pp)
{
	return R(f)->pMethods->xShmMap(R(f), pg, sz, extend, pp);
}

static int
f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	if (faultvfs_ckpt_busy && off == CKPT_LOCK && n == 1 &&
	    flags == (SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE)) {
		faultvfs_busied++;
		return SQLITE_BUSY;
	}
	return R(f)->pMethods->xShmLock(R(f), off, n, flags);
}

static void
f_shm_barrier(sqlite3_file *f)
{
	R(f)->pMethods->xShmBarrier(R(f));
}

static int
f_shm_unmap(sqlite3_file *f, int del)
{
	return R(f)->pMethods->xShmUnmap(R(f), del);
}

static int
f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
	return R(f)->pMethods->xFetch(R(f), off, n, pp);
}

static int
f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return R(f)->pMethods->xUnfetch(R(f), off, p);
}

static const sqlite3_io_methods methods = {
	3, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock,
	f_reserved, f_control, f_sector, f_chars, f_shm_map, f_shm_lock, f_shm_barrier,
	f_shm_unmap, f_fetch, f_unfetch,
};

static int
f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct ffile *p = (struct ffile *)f;
	int rc;

	(void)vfs;
	p->real = (sqlite3_file *)(p + 1);
	p->main_db = (flags & SQLITE_OPEN_MAIN_DB) != 0;
	rc = real->xOpen(real, name, p->real, flags, out);
	p->base.pMethods = rc == SQLITE_OK && p->real->pMethods != NULL ? &methods : NULL;
	return rc;
}

static int
f_delete(sqlite3_vfs *vfs, const char *name, int sync)
{
	(void)vfs;
	return real->xDelete(real, name, sync);
}

static int
f_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return real->xAccess(real, name, flags, out);
}

static int
f_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return real->xFullPathname(real, name, n, out);
}

int
faultvfs_install(void)
{
	if (real != NULL)
		return 0;
	if ((real = sqlite3_vfs_find(NULL)) == NULL || real->iVersion < 2)
		return -1;
	fault = *real;
	fault.iVersion = 2;
	fault.szOsFile = (int)sizeof(struct ffile) + real->szOsFile;
	fault.zName = "scaleprobe-fault";
	fault.pNext = NULL;
	fault.xOpen = f_open;
	fault.xDelete = f_delete;
	fault.xAccess = f_access;
	fault.xFullPathname = f_fullpath;
	return sqlite3_vfs_register(&fault, 1) == SQLITE_OK ? 0 : -1;
}
