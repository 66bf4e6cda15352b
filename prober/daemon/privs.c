/*
 * privs.c -- the daemon's privileges: started as root it gives the store's
 * directory to the user (0750), each name in it reached by a descriptor of
 * its directory and never through a link (statedir.h says what each must
 * be: anything else is refused), and then becomes that user keeping only
 * CAP_NET_RAW and CAP_NET_ADMIN (the capture, the raw sockets, the guard's
 * table), in its bounding set too; started as the user with those two as
 * ambient capabilities it ends the same (the bounding set is then the
 * unit's).  NoNewPrivs either way.  The capset system call itself:
 * two capabilities do not need libcap.
 */
#define _GNU_SOURCE	/* setresuid, setresgid */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "statedir.h"

#define KEEP ((1u << CAP_NET_RAW) | (1u << CAP_NET_ADMIN))

static int
caps_set(uint32_t eff, uint32_t perm)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];

	memset(c, 0, sizeof(c));
	c[0].effective = eff;
	c[0].permitted = perm;
	return (int)syscall(SYS_capset, &h, c);
}

/* path split at its last slash: the directory (".", "/") into dir, the
 * name after it into name; -1 when either does not fit. */
static int
split(const char *path, char *dir, size_t dlen, char *name, size_t nlen)
{
	size_t len = strlen(path), n;
	const char *slash;

	/* "a/b/" is "a/b"; "/" stays */
	while (len > 1 && path[len - 1] == '/')
		len--;
	for (slash = path + len; slash > path && slash[-1] != '/'; slash--)
		;
	if (slash == path) {
		snprintf(dir, dlen, ".");
		return (size_t)snprintf(name, nlen, "%.*s", (int)len, path) < nlen ? 0 : -1;
	}
	slash--;
	/* "a//b": the directory "a", as shared_dir compares it */
	for (n = (size_t)(slash - path); n > 1 && path[n - 1] == '/'; n--)
		;
	if (n == 0)
		n = 1;
	if (n >= dlen || len - (size_t)(slash + 1 - path) >= nlen)
		return -1;
	memcpy(dir, path, n);
	dir[n] = '\0';
	snprintf(name, nlen, "%.*s", (int)(len - (size_t)(slash + 1 - path)), slash + 1);
	return 0;
}

/* A directory everyone shares is used as it is: never made, re-owned or
 * checked (the files in it still are).  By name; one found sticky or
 * writable by others (/var/tmp, /dev/shm) is too (shared_mode). */
static bool
shared_dir(const char *dir)
{
	return strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0 || strcmp(dir, "/tmp") == 0;
}

static bool
shared_mode(const struct stat *sb)
{
	return (sb->st_mode & (S_ISVTX | S_IWOTH)) != 0;
}

/* path's kind and owner checked on sb; -1 logged in one line */
static int
check(const char *path, const struct stat *sb, enum statedir_kind kind, uid_t uid)
{
	char why[128];

	if (statedir_check(sb, kind, uid, why, sizeof(why)) == 0)
		return 0;
	log_warnx("%s: %s: refused", path, why);
	return -1;
}

/* The directory dir opened (O_RDONLY) without following a link at its
 * own name: its parent (links followed) root's or uid's and writable by
 * no one else unless sticky, dir itself made 0750 when missing (*made set)
 * and a directory of root's or uid's.  A shared one (shared_dir) is opened
 * as it is; *shared says whether it is one (or shared_mode).  The
 * descriptor, or -1 logged in one line. */
static int
open_dir_nofollow(const char *dir, uid_t uid, bool make, bool *made, bool *shared)
{
	char parent[4096], name[256];
	struct stat sb;
	int pfd, fd;

	*made = false;
	*shared = true;
	if (shared_dir(dir)) {
		if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
			log_warn("%s", dir);
		return fd;
	}
	if (split(dir, parent, sizeof(parent), name, sizeof(name)) != 0 || name[0] == '\0' ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		log_warnx("%s: not a directory's name scaleprobed can check", dir);
		return -1;
	}
	if ((pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		log_warn("%s", parent);
		return -1;
	}
	if (fstat(pfd, &sb) != 0 || check(parent, &sb, SD_PARENT, uid) != 0) {
		close(pfd);
		return -1;
	}
	if (make && mkdirat(pfd, name, 0750) == 0)
		*made = true;
	else if (make && errno != EEXIST) {
		log_warn("%s", dir);
		close(pfd);
		return -1;
	}
	/* the check before the open says why in words; the one after it is
	 * on what was opened, whatever was swapped in between */
	if (fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		log_warn("%s", dir);
		close(pfd);
		return -1;
	}
	if (check(dir, &sb, SD_DIR, uid) != 0) {
		close(pfd);
		return -1;
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(pfd);
	if (fd == -1) {
		log_warn("%s", dir);
		return -1;
	}
	if (fstat(fd, &sb) != 0 || check(dir, &sb, SD_DIR, uid) != 0) {
		close(fd);
		return -1;
	}
	*shared = shared_mode(&sb);
	return fd;
}

/* The regular file name in dfd (shown as path) opened with flags (never
 * following a link, never waiting on a FIFO) and checked: root's or uid's,
 * one link.  The descriptor, -2 when it does not exist and flags do not
 * create it, or -1 logged in one line. */
static int
open_file_at(int dfd, const char *name, const char *path, int flags, uid_t uid)
{
	struct stat sb;
	int fd;

	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		if (check(path, &sb, SD_FILE, uid) != 0)
			return -1;
	} else if (errno != ENOENT) {
		log_warn("%s", path);
		return -1;
	} else if ((flags & O_CREAT) == 0)
		return -2;
	if ((fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	    0640)) == -1) {
		if (errno == ENOENT && (flags & O_CREAT) == 0)
			return -2;
		log_warn("%s", path);
		return -1;
	}
	if (fstat(fd, &sb) != 0 || check(path, &sb, SD_FILE, uid) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The user started as root (0 and root's group when not root: the files
 * are whoever runs it's, or root's) */
static int
user_ids(const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;

	if (geteuid() != 0) {
		*uid = geteuid();
		*gid = getegid();
		return 0;
	}
	if ((pw = getpwnam(user)) == NULL) {
		log_warnx("user %s: no such user", user);
		return -1;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

int
privs_open_lock(const char *dbfile, const char *user)
{
	char dir[4096], name[256], path[4200];
	uid_t uid;
	gid_t gid;
	bool made, shared;
	int dfd, fd;

	if (user_ids(user, &uid, &gid) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s.lock", dbfile);
	if (split(path, dir, sizeof(dir), name, sizeof(name)) != 0) {
		log_warnx("%s: name too long", path);
		return -1;
	}
	if ((dfd = open_dir_nofollow(dir, uid, false, &made, &shared)) == -1)
		return -1;
	fd = open_file_at(dfd, name, path, O_RDWR | O_CREAT, uid);
	close(dfd);
	if (fd < 0)
		return -1;
	if (geteuid() == 0 && (fchown(fd, uid, gid) != 0 || fchmod(fd, 0640) != 0)) {
		log_warn("%s", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The control socket's directory (systemd's RuntimeDirectory when it runs
 * the daemon): made when missing, 0750 so that the group may enter it.
 * 0 or -1. */
static int
prepare_control_dir(const char *control, uid_t uid, gid_t gid)
{
	char dir[4096], name[256];
	bool made, shared;
	int dfd;

	if (split(control, dir, sizeof(dir), name, sizeof(name)) != 0) {
		log_warnx("%s: name too long", control);
		return -1;
	}
	if (shared_dir(dir))
		return 0;
	if ((dfd = open_dir_nofollow(dir, uid, true, &made, &shared)) == -1)
		return -1;
	if (made && (fchown(dfd, uid, gid) != 0 || fchmod(dfd, 0750) != 0)) {
		log_warn("%s", dir);
		close(dfd);
		return -1;
	}
	close(dfd);
	return 0;
}

/* The database's directory (unless shared) and its files (those there)
 * given to uid:gid, 0750 and 0640; every name checked before anything is
 * changed.  0 or -1. */
static int
prepare_db_files(const char *dbfile, uid_t uid, gid_t gid)
{
	static const char *const sfx[] = { "", "-wal", "-shm", ".lock" };
	const size_t nsfx = sizeof(sfx) / sizeof(sfx[0]);
	char dir[4096], name[256], f[4200];
	bool made, shared;
	int dfd, fds[sizeof(sfx) / sizeof(sfx[0])], rc = 0;
	size_t i;

	if (split(dbfile, dir, sizeof(dir), name, sizeof(name)) != 0) {
		log_warnx("%s: name too long", dbfile);
		return -1;
	}
	if ((dfd = open_dir_nofollow(dir, uid, true, &made, &shared)) == -1)
		return -1;
	/* every name checked before anything is changed */
	for (i = 0; i < nsfx; i++)
		fds[i] = -2;
	for (i = 0; i < nsfx && rc == 0; i++) {
		char fn[300];

		snprintf(f, sizeof(f), "%s%s", dbfile, sfx[i]);
		snprintf(fn, sizeof(fn), "%s%s", name, sfx[i]);
		if ((fds[i] = open_file_at(dfd, fn, f, O_RDONLY, uid)) == -1)
			rc = -1;
	}
	if (rc == 0 && !shared && (fchown(dfd, uid, gid) != 0 || fchmod(dfd, 0750) != 0)) {
		log_warn("%s", dir);
		rc = -1;
	}
	for (i = 0; i < nsfx; i++) {
		if (fds[i] < 0)
			continue;
		if (rc == 0 && (fchown(fds[i], uid, gid) != 0 || fchmod(fds[i], 0640) != 0)) {
			log_warn("%s%s", dbfile, sfx[i]);
			rc = -1;
		}
		close(fds[i]);
	}
	close(dfd);
	return rc;
}

/* The bound control socket given to uid:gid (a socket cannot be opened:
 * an O_PATH descriptor re-owned).  0 or -1. */
static int
chown_control_socket(const char *control, uid_t uid, gid_t gid)
{
	char dir[4096], name[256];
	struct stat sb;
	bool made, shared;
	int dfd, fd;

	if (split(control, dir, sizeof(dir), name, sizeof(name)) != 0) {
		log_warnx("%s: name too long", control);
		return -1;
	}
	if ((dfd = open_dir_nofollow(dir, uid, false, &made, &shared)) == -1)
		return -1;
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd == -1) {
		log_warn("%s", control);
		return -1;
	}
	if (fstat(fd, &sb) != 0) {
		log_warn("%s", control);
		close(fd);
		return -1;
	}
	if (check(control, &sb, SD_SOCKET, uid) != 0) {
		close(fd);
		return -1;
	}
	if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH) != 0) {
		log_warn("%s", control);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The directory of dbfile made (or kept) 0750 and owned by user, its
 * files (the database, its WAL and shared memory, the lock) by user too
 * and 0640, so that the scaleprobe group reads the history; the control
 * socket (when given, bound 0660 by control_open) the user's: the group
 * may ask the status.  Every name is reached relative to its directory's
 * descriptor and none is followed when it is a link (statedir.h says what
 * each must be). */
int
privs_prepare_dir(const char *dbfile, const char *control, const char *user)
{
	uid_t uid;
	gid_t gid;

	if (geteuid() != 0)
		return 0;
	if (user_ids(user, &uid, &gid) != 0)
		return -1;
	if (dbfile == NULL)
		return prepare_control_dir(control, uid, gid);
	if (prepare_db_files(dbfile, uid, gid) != 0)
		return -1;
	if (control != NULL)
		return chown_control_socket(control, uid, gid);
	return 0;
}

int
privs_drop(const char *user)
{
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam(user);

		if (pw == NULL) {
			log_warnx("user %s: no such user", user);
			return -1;
		}
		/* the bounding set the two as well, as the unit's
		 * CapabilityBoundingSet= makes it: no other capability can
		 * come back, not even through a program it runs.  Up to the
		 * kernel's last, which PR_CAPBSET_READ refuses past. */
		for (int cap = 0; cap < 64 && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
			if ((KEEP & (1ull << cap)) == 0 &&
			    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
				log_warn("prctl(PR_CAPBSET_DROP, %d)", cap);
				return -1;
			}
		}
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 ||
		    setgroups(1, &pw->pw_gid) != 0 || setresgid(pw->pw_gid, pw->pw_gid,
		    pw->pw_gid) != 0 || setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) != 0) {
			log_warn("becoming %s", user);
			return -1;
		}
		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0) {
			log_warn("prctl");
			return -1;
		}
	}
	/* what a root start kept, or what systemd gave as ambient: both
	 * become exactly the two, none inheritable, none ambient */
	if (caps_set(KEEP, KEEP) != 0) {
		log_warn("capset (CAP_NET_RAW and CAP_NET_ADMIN are needed)");
		return -1;
	}
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		log_warn("prctl(PR_SET_NO_NEW_PRIVS)");
		return -1;
	}
	if (getuid() == 0 || geteuid() == 0) {
		log_warnx("still root after dropping privileges");
		return -1;
	}
	return 0;
}
