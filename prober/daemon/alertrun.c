/*
 * alertrun.c -- the alert command's environment, the cap on its output,
 * the steps after its timeout, the words for how it ended, and when a
 * failed run is tried again
 * (alertrun.h).
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "alertrun.h"

#define STR(x) STR_(x)
#define STR_(x) #x
#define NOT_LOGGED "(the rest of its output not logged: more than " STR(ALERTRUN_LOG_MAX) \
	" bytes)"

/* A fixed PATH for a program that runs what it needs by name, LANG=C for
 * messages a script may parse; nothing else (no NOTIFY_SOCKET, no
 * credentials, no locale of whoever started the daemon). */
const char *const alertrun_env[] = {
	"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
	"LANG=C",
	NULL,
};

/* The line so far, logged; its newline counts: 4 KiB of empty lines
 * is not a million log lines. */
static void
flush(struct alertrun_out *o, alertrun_emit emit, void *arg)
{
	size_t room = ALERTRUN_LOG_MAX - o->logged;
	size_t k = o->len < room ? o->len : room;

	if (k > 0)
		emit(arg, o->line, k);
	o->logged += k + 1 < room ? k + 1 : room;
	if (o->logged >= ALERTRUN_LOG_MAX) {
		o->capped = true;
		emit(arg, NOT_LOGGED, sizeof(NOT_LOGGED) - 1);
	}
	o->len = 0;
}

bool
alertrun_out_feed(struct alertrun_out *o, const char *buf, size_t n, alertrun_emit emit,
    void *arg)
{
	o->total += n;
	for (size_t i = 0; i < n && !o->capped; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch == '\n') {
			flush(o, emit, arg);
			continue;
		}
		o->line[o->len++] = (char)ch;
		if (o->len == ALERTRUN_LINE_MAX)
			flush(o, emit, arg);
	}
	return o->total > ALERTRUN_OUT_MAX;
}

void
alertrun_out_end(struct alertrun_out *o, alertrun_emit emit, void *arg)
{
	if (o->len > 0 && !o->capped)
		flush(o, emit, arg);
}

int
alertrun_on_timer(enum alertrun_stage *st, unsigned *next_s)
{
	switch (*st) {
	case ALERTRUN_RUNNING:
		*st = ALERTRUN_TERMED;
		*next_s = ALERTRUN_GRACE_S;
		return SIGTERM;
	case ALERTRUN_TERMED:
		*st = ALERTRUN_KILLED;
		*next_s = ALERTRUN_GRACE_S;
		return SIGKILL;
	case ALERTRUN_KILLED:
	case ALERTRUN_ABANDONED:
		break;
	}
	*st = ALERTRUN_ABANDONED;
	*next_s = 0;
	return 0;
}

void
alertrun_status_text(char *buf, size_t len, int status, enum alertrun_stage st,
    bool out_killed)
{
	const char *why = out_killed ? ", killed for its output" :
	    st != ALERTRUN_RUNNING ? ", killed at its timeout" : "";

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && *why == '\0')
		snprintf(buf, len, "%s", "");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exit %d%s", WEXITSTATUS(status), why);
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal %d%s", WTERMSIG(status), why);
	else
		snprintf(buf, len, "status %#x%s", (unsigned)status, why);
}

bool
alertrun_failed(int status, enum alertrun_stage st, bool out_killed)
{
	if (out_killed || st != ALERTRUN_RUNNING)
		return false;
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

unsigned
alertrun_retry_delay(unsigned tries, unsigned first_s)
{
	/* a mail relay's or a web hook's refusal while it restarts: a
	 * retry soon (10 s by default), then one a minute later; beyond
	 * that the failure is the program's own and a retry would only
	 * repeat it */
	if (tries == 0 || tries >= ALERTRUN_TRIES || first_s == 0)
		return 0;
	return tries == 1 ? first_s : 6 * first_s;
}
