/*
 * privs.c -- the daemon's privileges: started as root it gives the store's
 * directory to the user (0750) and then becomes that user keeping only
 * CAP_NET_RAW and CAP_NET_ADMIN (the capture, the raw sockets, the guard's
 * table); started as the user with those two as ambient capabilities it
 * ends the same.  NoNewPrivs either way.  The capset system call itself:
 * two capabilities do not need libcap.
 */
#define _GNU_SOURCE	/* setresuid, setresgid */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"

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

/* The directory of dbfile made (or kept) 0750 and owned by user, its
 * files (the database, its WAL and shared memory, the lock) by user too
 * and 0640, so that the scaleprobe group reads the history; the control
 * socket (when given) the user's, 0660: the group may ask the status. */
int
privs_prepare_dir(const char *dbfile, const char *control, const char *user)
{
	struct passwd *pw;
	char dir[4096], *slash, f[4200];
	static const char *const sfx[] = { "", "-wal", "-shm", ".lock" };

	if (geteuid() != 0)
		return 0;
	if ((pw = getpwnam(user)) == NULL) {
		log_warnx("user %s: no such user", user);
		return -1;
	}
	if (dbfile == NULL) {
		/* the control socket's directory (systemd's RuntimeDirectory
		 * when it runs the daemon): made when missing */
		snprintf(dir, sizeof(dir), "%s", control);
		if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
			return 0;
		*slash = '\0';
		if (mkdir(dir, 0750) == 0 && chown(dir, pw->pw_uid, pw->pw_gid) != 0) {
			log_warn("%s", dir);
			return -1;
		}
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", dbfile);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (mkdir(dir, 0750) != 0 && errno != EEXIST) {
		log_warn("%s", dir);
		return -1;
	}
	/* a shared directory (/tmp, the working directory) is left as it is */
	if (strcmp(dir, ".") != 0 && strcmp(dir, "/") != 0 && strcmp(dir, "/tmp") != 0 &&
	    (chown(dir, pw->pw_uid, pw->pw_gid) != 0 || chmod(dir, 0750) != 0)) {
		log_warn("%s", dir);
		return -1;
	}
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(f, sizeof(f), "%s%s", dbfile, sfx[i]);
		if ((chown(f, pw->pw_uid, pw->pw_gid) != 0 || chmod(f, 0640) != 0) &&
		    errno != ENOENT) {
			log_warn("%s", f);
			return -1;
		}
	}
	if (control != NULL && (chown(control, pw->pw_uid, pw->pw_gid) != 0 ||
	    chmod(control, 0660) != 0)) {
		log_warn("%s", control);
		return -1;
	}
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
