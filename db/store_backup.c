/*
 * store_backup.c -- the copy taken before a migration, and the way back.
 * A store is never migrated without a copy of what it was: FILE.vN-
 * YYYYmmddTHHMMSSZ.bak beside it (N the version it had), written through
 * SQLite's backup API from the migrating connection inside its write
 * transaction (so the copy is exactly what is migrated), fsynced, with the
 * store's own mode bits.  A binary that meets a store newer than it knows
 * names the newest copy of a version it reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store_int.h"

int
store_backup_take(struct store *st, int64_t version)
{
	char name[4300], stamp[32];
	struct stat sb;
	struct tm tm;
	time_t now = time(NULL);
	sqlite3 *dst = NULL;
	sqlite3_backup *b;
	int fd, rc;
	mode_t mode = 0640;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (stat(st->file, &sb) == 0)
		mode = sb.st_mode & 0666;
	for (int i = 0; ; i++) {
		if (i == 0)
			snprintf(name, sizeof(name), "%s.v%lld-%s.bak", st->file, (long long)version,
			    stamp);
		else
			snprintf(name, sizeof(name), "%s.v%lld-%s-%d.bak", st->file,
			    (long long)version, stamp, i);
		/* never onto another file, nor through a link */
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd != -1 || errno != EEXIST || i == 9)
			break;
	}
	if (fd == -1 || fchmod(fd, mode) != 0) {
		snprintf(st->err, sizeof(st->err), "%.200s: the copy before the migration, "
		    "%.240s: %s", st->file, name, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(name);
		}
		return -1;
	}
	close(fd);
	rc = sqlite3_open_v2(name, &dst, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK) {
		if ((b = sqlite3_backup_init(dst, "main", st->db, "main")) == NULL)
			rc = sqlite3_errcode(dst);
		else {
			rc = sqlite3_backup_step(b, -1);
			if (rc == SQLITE_DONE)
				rc = SQLITE_OK;
			if (sqlite3_backup_finish(b) != SQLITE_OK && rc == SQLITE_OK)
				rc = sqlite3_errcode(dst);
		}
	}
	/* a copy to read as it is: no WAL file beside it */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(dst, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		snprintf(st->err, sizeof(st->err), "%.200s: the copy before the migration, "
		    "%.240s: %s", st->file, name, dst != NULL ? sqlite3_errmsg(dst) :
		    sqlite3_errstr(rc));
		sqlite3_close(dst);
		unlink(name);
		return -1;
	}
	sqlite3_close(dst);
	free(st->backup);
	if ((st->backup = strdup(name)) == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return -1;
	}
	st->migrated_from = version;
	return 0;
}

int
store_backup_find(const char *file, char *out, size_t len)
{
	char pat[4300];
	glob_t g;
	int best = -1;
	long bestv = -1;

	/* glob's own characters in the name would make another pattern */
	if (strpbrk(file, "*?[\\") != NULL)
		return -1;
	snprintf(pat, sizeof(pat), "%s.v*.bak", file);
	if (glob(pat, 0, NULL, &g) != 0)
		return -1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *v = g.gl_pathv[i] + strlen(file) + 2;
		char *end;
		long ver = strtol(v, &end, 10);

		if (end == v || *end != '-' || ver < 1 || ver > STORE_SCHEMA_VERSION)
			continue;
		/* the newest version this binary reads; of it, the latest copy
		 * (the names sort by time) */
		if (ver > bestv || (ver == bestv && strcmp(g.gl_pathv[i], g.gl_pathv[best]) > 0)) {
			bestv = ver;
			best = (int)i;
		}
	}
	if (best >= 0)
		snprintf(out, len, "%s", g.gl_pathv[best]);
	globfree(&g);
	return best >= 0 ? 0 : -1;
}

const char *
store_backup(const struct store *st)
{
	return st->backup;
}

int64_t
store_migrated_from(const struct store *st)
{
	return st->migrated_from;
}
