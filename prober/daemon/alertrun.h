/*
 * alertrun.h -- one run of the alert-command program decided without I/O:
 * the environment it gets, what becomes of its output, and the signals
 * that follow its timeout.  alertcmd.c does what these say.
 *
 * Output: complete lines are logged (through log_escape), until ALERTRUN_LOG_MAX bytes of a run were logged; then one line says
 * the rest is not, and the rest is read and thrown away.  A run whose
 * output passes ALERTRUN_OUT_MAX is killed: nobody reads that much from
 * an alert hook, and draining it would spend the daemon's time.
 */
#ifndef SCALEPROBE_ALERTRUN_H
#define SCALEPROBE_ALERTRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ALERTRUN_LOG_MAX 4096		/* bytes of a run's output logged */
#define ALERTRUN_OUT_MAX (1024 * 1024)	/* a run writing more is killed */
#define ALERTRUN_LINE_MAX 512		/* a longer line is logged in pieces */
#define ALERTRUN_GRACE_S 2		/* from SIGTERM to SIGKILL, and after */
#define ALERTRUN_MAX 4			/* runs at once */
#define ALERTRUN_QUEUE_MAX 64		/* alerts waiting for a free run */
#define ALERTRUN_INPUT_MAX 65536	/* the change's JSON, at most */
#define ALERTRUN_TRIES 3		/* runs of one alert, the first included */
#define ALERTRUN_RETRY_MAX 64		/* alerts waiting to be tried again */

/* The whole environment of the program: nothing of the daemon's. */
extern const char *const alertrun_env[];

struct alertrun_out {
	uint64_t total;			/* bytes read */
	size_t logged;			/* bytes of lines logged */
	bool capped;			/* the "not logged" line was given */
	char line[ALERTRUN_LINE_MAX + 1];
	size_t len;
};

/* Called with each line to log, without its newline: any bytes. */
typedef void (*alertrun_emit)(void *arg, const char *line, size_t len);

/* n more bytes of output.  Returns true once the run's output passed
 * ALERTRUN_OUT_MAX: the run is to be killed. */
bool alertrun_out_feed(struct alertrun_out *o, const char *buf, size_t n, alertrun_emit emit,
    void *arg);

/* At the end of the output: a last line without its newline, logged. */
void alertrun_out_end(struct alertrun_out *o, alertrun_emit emit, void *arg);

/* Where a run is after its deadline. */
enum alertrun_stage {
	ALERTRUN_RUNNING,	/* before the timeout */
	ALERTRUN_TERMED,	/* SIGTERM sent */
	ALERTRUN_KILLED,	/* SIGKILL sent */
	ALERTRUN_ABANDONED,	/* its pipes closed; reaped whenever it ends */
};

/* The timer of a run fired: the stage moves on; returns the signal to
 * send its process group now (0: none) and, in *next_s, the seconds until
 * the timer is due again (0: not again). */
int alertrun_on_timer(enum alertrun_stage *st, unsigned *next_s);

/* One line for the log about how a run ended (waitpid's status), or ""
 * when there is nothing to say (exit 0 before any timeout). */
void alertrun_status_text(char *buf, size_t len, int status, enum alertrun_stage st,
    bool out_killed);

/* Whether a run failed and its alert is to be tried again: it exited with
 * a status other than 0 or died of a signal not the daemon's.  A run
 * killed at its timeout or for its output is not: it already held one
 * of ALERTRUN_MAX places for alert-timeout (or wrote a flood), and
 * running it again would hold the others' alerts back as long again. */
bool alertrun_failed(int status, enum alertrun_stage st, bool out_killed);

/* After the tries-th run of an alert failed: the seconds to wait before
 * the next (first_s, the alert-retry setting, after the first; 6 times
 * that after the second), or 0 when no try is left (ALERTRUN_TRIES
 * reached). */
unsigned alertrun_retry_delay(unsigned tries, unsigned first_s);

#endif
