/*
 * clockwatch.c -- whether this host's clock is synchronised, for each run
 * the daemon begins (runs.clock): systemd-timesyncd's flag file (its
 * presence and age), else `chronyc -n -c tracking` (run with a timeout,
 * its output read through clocksync.h's pure reader), else "unknown".
 * Asked once at start and then every CLOCKWATCH_PERIOD_S on a thread of
 * its own, so neither a slow chronyc nor a missing one holds a cycle.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clockwatch.h"

#define CLOCKWATCH_PERIOD_S	60
#define CHRONYC_TIMEOUT_MS	2000
#define TIMESYNCD_FLAG		"/run/systemd/timesync/synchronized"

extern char **environ;

static _Atomic int current = CLOCK_SYNC_UNKNOWN;
static pthread_t th;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool running, stopping;

/* chronyc's one line, within the timeout; UNKNOWN when it is missing,
 * slow, fails or says something else. */
static enum clock_sync
ask_chrony(void)
{
	static const char *const where[] = { "/usr/bin/chronyc", "/usr/sbin/chronyc", NULL };
	char *argv[] = { "chronyc", "-n", "-c", "tracking", NULL };
	posix_spawn_file_actions_t fa;
	char buf[1024];
	size_t len = 0;
	const char *bin = NULL;
	struct timespec t0, now;
	int p[2], status;
	pid_t pid;
	bool done = false;

	for (int i = 0; where[i] != NULL && bin == NULL; i++)
		if (access(where[i], X_OK) == 0)
			bin = where[i];
	if (bin == NULL || pipe(p) != 0)
		return CLOCK_SYNC_UNKNOWN;
	/* not inherited by what the daemon spawns later (a window remains
	 * before these calls: a leaked write end only runs out the timeout) */
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	errno = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (errno != 0) {
		close(p[0]);
		return CLOCK_SYNC_UNKNOWN;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!done) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = CHRONYC_TIMEOUT_MS - ((now.tv_sec - t0.tv_sec) * 1000 +
		    (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			break;
		n = read(p[0], buf + len, sizeof(buf) - len);
		if (n <= 0)
			done = n == 0;
		else if ((len += (size_t)n) == sizeof(buf))
			break;		/* more than a line: not chronyc's */
	}
	close(p[0]);
	if (!done)
		kill(pid, SIGKILL);	/* our child, by its pid */
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return CLOCK_SYNC_UNKNOWN;
	return clocksync_chrony(buf, len);
}

static enum clock_sync
ask(void)
{
	struct stat sb;
	bool present = stat(TIMESYNCD_FLAG, &sb) == 0 && S_ISREG(sb.st_mode);
	enum clock_sync c = clocksync_timesyncd(present, present ?
	    (int64_t)time(NULL) - (int64_t)sb.st_mtime : 0);

	return c == CLOCK_SYNC_YES ? c : ask_chrony();
}

static void *
loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!stopping) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += CLOCKWATCH_PERIOD_S;
		while (!stopping && pthread_cond_timedwait(&cv, &mu, &until) != ETIMEDOUT)
			;
		if (stopping)
			break;
		pthread_mutex_unlock(&mu);
		atomic_store(&current, (int)ask());
		pthread_mutex_lock(&mu);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

void
clockwatch_start(void)
{
	atomic_store(&current, (int)ask());
	stopping = false;
	running = pthread_create(&th, NULL, loop, NULL) == 0;
}

void
clockwatch_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&mu);
	stopping = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	running = false;
}

enum clock_sync
clockwatch_now(void)
{
	return (enum clock_sync)atomic_load(&current);
}
