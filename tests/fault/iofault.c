/*
 * iofault.c -- an LD_PRELOAD shim that fails the store's writes and syncs
 * on demand, for tests/e2e/iofault-e2e: write, pwrite, pwrite64, fsync
 * and fdatasync on a descriptor whose file's name begins with
 * IOFAULT_PATH (the database, its -wal, -shm and -journal) are counted,
 * and the chosen ones fail with IOFAULT_ERRNO (EIO or ENOSPC) without
 * touching the file, as a disk that errs or is full would.
 *
 *   IOFAULT_PATH=PREFIX  the files counted; unset: the shim does nothing
 *   IOFAULT_AT=N         the Nth call counted fails (1-based), and ...
 *   IOFAULT_TIMES=K      ... the K-1 after it (default 1)
 *   IOFAULT_GATE=FILE    every call counted fails while FILE exists (a
 *                        disk full until the test frees it); while FILE.db
 *                        exists, those on the database file itself (not
 *                        its -wal: a checkpoint's) fail
 *   IOFAULT_ERRNO=EIO|ENOSPC (default EIO)
 *   IOFAULT_REPORT=FILE  at exit "calls N faults M" (a clean run's N is
 *                        what the next runs choose from); each fault also
 *                        appends "fault CALL NAME PATH ERRNO" as it happens
 *
 * Threads (SQLite's checkpointer) share the counter.  The shim's own
 * report is written with the real write(), never counted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef int (*sync_fn)(int);

static atomic_ulong calls, faults;
static const char *prefix, *gate, *report;
static char gate_db[4200];
static unsigned long at, times = 1;
static int fault_errno = EIO;
static write_fn real_write;
static pwrite_fn real_pwrite;
static pwrite64_fn real_pwrite64;
static sync_fn real_fsync, real_fdatasync;

__attribute__((constructor)) static void
iofault_init(void)
{
	const char *e;

	/* resolved before main: SQLite's first write comes later */
	real_write = (write_fn)dlsym(RTLD_NEXT, "write");
	real_pwrite = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
	real_pwrite64 = (pwrite64_fn)dlsym(RTLD_NEXT, "pwrite64");
	real_fsync = (sync_fn)dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = (sync_fn)dlsym(RTLD_NEXT, "fdatasync");
	prefix = getenv("IOFAULT_PATH");
	gate = getenv("IOFAULT_GATE");
	report = getenv("IOFAULT_REPORT");
	if ((e = getenv("IOFAULT_AT")) != NULL)
		at = strtoul(e, NULL, 10);
	if ((e = getenv("IOFAULT_TIMES")) != NULL && strtoul(e, NULL, 10) > 0)
		times = strtoul(e, NULL, 10);
	if ((e = getenv("IOFAULT_ERRNO")) != NULL && strcmp(e, "ENOSPC") == 0)
		fault_errno = ENOSPC;
	if (prefix != NULL && prefix[0] == '\0')
		prefix = NULL;
	if (gate != NULL)
		snprintf(gate_db, sizeof(gate_db), "%s.db", gate);
}

static void
say(const char *line)
{
	int fd;

	if (report == NULL || real_write == NULL)
		return;
	if ((fd = open(report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return;
	(void)real_write(fd, line, strlen(line));
	close(fd);
}

__attribute__((destructor)) static void
iofault_fini(void)
{
	char line[96];

	if (prefix == NULL)
		return;
	snprintf(line, sizeof(line), "calls %lu faults %lu\n", atomic_load(&calls),
	    atomic_load(&faults));
	say(line);
}

/* Whether this call on fd fails: counted when fd is one of the store's
 * files, failed when its number is chosen or the gate is there. */
static bool
fails(int fd, const char *name)
{
	char link[64], path[4096], line[4300];
	unsigned long n;
	ssize_t len;

	if (prefix == NULL || fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((len = readlink(link, path, sizeof(path) - 1)) <= 0)
		return false;
	path[len] = '\0';
	if (strncmp(path, prefix, strlen(prefix)) != 0)
		return false;
	n = atomic_fetch_add(&calls, 1) + 1;
	if (!((at > 0 && n >= at && n < at + times) ||
	    (gate != NULL && access(gate, F_OK) == 0) ||
	    (gate != NULL && strcmp(path, prefix) == 0 && access(gate_db, F_OK) == 0)))
		return false;
	atomic_fetch_add(&faults, 1);
	snprintf(line, sizeof(line), "fault %lu %s %s %s\n", n, name, path,
	    fault_errno == ENOSPC ? "ENOSPC" : "EIO");
	say(line);
	errno = fault_errno;
	return true;
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	return fails(fd, "write") ? -1 : real_write(fd, buf, len);
}

ssize_t
pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return fails(fd, "pwrite") ? -1 : real_pwrite(fd, buf, len, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	return fails(fd, "pwrite64") ? -1 : real_pwrite64(fd, buf, len, off);
}

int
fsync(int fd)
{
	return fails(fd, "fsync") ? -1 : real_fsync(fd);
}

int
fdatasync(int fd)
{
	return fails(fd, "fdatasync") ? -1 : real_fdatasync(fd);
}
