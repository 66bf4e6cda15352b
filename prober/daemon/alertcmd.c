/*
 * alertcmd.c -- alert-command's runs on the daemon's loop (alertcmd.h):
 * fork and exec with a clean slate, the pipes, the timer, SIGCHLD, and a
 * failed run's alert tried again later (alertrun_retry_delay).
 */
#define _GNU_SOURCE	/* pipe2 */

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alertcmd.h"
#include "alertcmd_child.h"
#include "alertrun.h"
#include "log.h"

struct run {
	struct alertcmd *ac;
	pid_t pid;
	int in, out;			/* our ends; -1 once closed */
	struct event *ev_in, *ev_out, *timer;
	char *json, *program;
	size_t len, off;
	unsigned timeout_s, retry_s;
	unsigned tries;			/* this run's, counted from 1 */
	struct alertrun_out o;
	enum alertrun_stage st;
	bool exited;			/* seen with WNOWAIT: a zombie, not reaped */
	bool out_killed;
};

struct pending {
	char *program, *json;
	size_t len;
	unsigned timeout_s, retry_s;
	unsigned tries;			/* runs of it that failed before */
};

/* An alert waiting to be tried again after a failed run. */
struct retry {
	struct alertcmd *ac;
	struct event *ev;
	struct pending p;
};

struct alertcmd {
	struct event_base *base;
	struct event *sigchld;
	struct run *runs[ALERTRUN_MAX];
	struct pending q[ALERTRUN_QUEUE_MAX];
	size_t qhead, qn;
	struct retry *retries[ALERTRUN_RETRY_MAX];
};

static void start(struct alertcmd *ac, struct pending *p);
static void submit(struct alertcmd *ac, struct pending *p);

/* --- the daemon's side ------------------------------------------------------ */

static void
emit(void *arg, const char *line, size_t len)
{
	struct run *r = arg;
	char esc[LOG_ESCAPE_SIZE(ALERTRUN_LINE_MAX)];

	log_warnx("alert-command [%ld]: %s", (long)r->pid, log_escape(esc, sizeof(esc), line, len));
}

static void
signal_group(struct run *r, int sig)
{
	/* the leader is not reaped (r exists until it is): -pid is still the
	 * group the child made */
	if (kill(-r->pid, sig) != 0 && errno == ESRCH)
		(void)kill(r->pid, sig);
}

static void
close_in(struct run *r)
{
	if (r->ev_in != NULL)
		event_free(r->ev_in);
	r->ev_in = NULL;
	if (r->in != -1)
		close(r->in);
	r->in = -1;
}

static void
close_out(struct run *r)
{
	if (r->ev_out != NULL)
		event_free(r->ev_out);
	r->ev_out = NULL;
	if (r->out != -1)
		close(r->out);
	r->out = -1;
}

static void
run_free(struct run *r)
{
	close_in(r);
	close_out(r);
	if (r->timer != NULL)
		event_free(r->timer);
	free(r->json);
	free(r->program);
	free(r);
}

static void
on_retry(evutil_socket_t fd, short what, void *arg)
{
	struct retry *rt = arg;
	struct alertcmd *ac = rt->ac;
	struct pending p = rt->p;

	(void)fd;
	(void)what;
	for (size_t i = 0; i < ALERTRUN_RETRY_MAX; i++)
		if (ac->retries[i] == rt)
			ac->retries[i] = NULL;
	event_free(rt->ev);
	free(rt);
	submit(ac, &p);
}

/* r failed: its alert tried again after alertrun_retry_delay, while a
 * try is left and there is room; r's program and input taken over. */
static void
retry_later(struct alertcmd *ac, struct run *r)
{
	unsigned delay = alertrun_retry_delay(r->tries, r->retry_s);
	struct timeval tv = { 0, 0 };
	struct retry *rt;
	size_t slot;

	if (delay == 0) {
		log_warnx("alert-command [%ld]: failed %u times; this alert is not tried again",
		    (long)r->pid, r->tries);
		return;
	}
	for (slot = 0; slot < ALERTRUN_RETRY_MAX && ac->retries[slot] != NULL; slot++)
		;
	if (slot == ALERTRUN_RETRY_MAX) {
		log_warnx("alert-command [%ld]: failed, and %d alerts already wait to be tried "
		    "again; this one is not", (long)r->pid, ALERTRUN_RETRY_MAX);
		return;
	}
	rt = xcalloc(1, sizeof(*rt));
	rt->ac = ac;
	if ((rt->ev = evtimer_new(ac->base, on_retry, rt)) == NULL) {
		log_warnx("alert-command: cannot make a retry's timer");
		free(rt);
		return;
	}
	rt->p.program = r->program;
	rt->p.json = r->json;
	rt->p.len = r->len;
	rt->p.timeout_s = r->timeout_s;
	rt->p.retry_s = r->retry_s;
	rt->p.tries = r->tries;
	r->program = r->json = NULL;
	ac->retries[slot] = rt;
	tv.tv_sec = (time_t)delay;
	evtimer_add(rt->ev, &tv);
	log_warnx("alert-command [%ld]: failed (try %u of %d); tried again in %u s",
	    (long)r->pid, r->tries, ALERTRUN_TRIES, delay);
}

/* The run ends when its program exited and its output is closed (EOF, or
 * given up); then it is reaped, its slot taken by the next alert. */
static void
check_done(struct run *r)
{
	struct alertcmd *ac = r->ac;
	siginfo_t si;
	int status;
	char text[128];

	if (!r->exited) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == r->pid)
			r->exited = true;
	}
	if (!r->exited || r->out != -1)
		return;
	if (waitpid(r->pid, &status, WNOHANG) != r->pid)
		return;
	alertrun_status_text(text, sizeof(text), status, r->st, r->out_killed);
	if (text[0] != '\0')
		log_warnx("alert-command [%ld]: %s", (long)r->pid, text);
	if (alertrun_failed(status, r->st, r->out_killed))
		retry_later(ac, r);
	for (size_t i = 0; i < ALERTRUN_MAX; i++)
		if (ac->runs[i] == r)
			ac->runs[i] = NULL;
	run_free(r);
	if (ac->qn > 0) {
		struct pending p = ac->q[ac->qhead];

		ac->qhead = (ac->qhead + 1) % ALERTRUN_QUEUE_MAX;
		ac->qn--;
		start(ac, &p);
	}
}

static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	enum alertrun_stage was = r->st;
	unsigned next;
	int sig;

	(void)fd;
	(void)what;
	sig = alertrun_on_timer(&r->st, &next);
	if (sig != 0) {
		if (was == ALERTRUN_RUNNING)
			log_warnx("alert-command [%ld]: past its timeout; SIGTERM to its process "
			    "group", (long)r->pid);
		/* also when it exited: a child of it holds the output open */
		signal_group(r, sig);
	}
	if (next > 0) {
		struct timeval tv = { (time_t)next, 0 };

		evtimer_add(r->timer, &tv);
		return;
	}
	log_warnx("alert-command [%ld]: still there after SIGKILL; its pipes closed",
	    (long)r->pid);
	close_in(r);
	close_out(r);
	check_done(r);
}

static void
on_out(evutil_socket_t fd, short what, void *arg)
{
	static char buf[65536];
	struct run *r = arg;
	ssize_t k;

	(void)what;
	k = read(fd, buf, sizeof(buf));
	if (k > 0) {
		if (alertrun_out_feed(&r->o, buf, (size_t)k, emit, r) && !r->out_killed) {
			unsigned next;

			r->out_killed = true;
			log_warnx("alert-command [%ld]: more than %d bytes of output; killed",
			    (long)r->pid, ALERTRUN_OUT_MAX);
			/* closed: its next write is a SIGPIPE; the timer goes on
			 * to SIGKILL */
			close_out(r);
			if (r->st == ALERTRUN_RUNNING) {
				struct timeval tv;

				signal_group(r, alertrun_on_timer(&r->st, &next));
				tv.tv_sec = (time_t)next;
				tv.tv_usec = 0;
				evtimer_add(r->timer, &tv);
			}
			check_done(r);
		}
		return;
	}
	if (k == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k == -1)
		log_warn("alert-command [%ld]: read", (long)r->pid);
	alertrun_out_end(&r->o, emit, r);
	close_out(r);
	check_done(r);
}

static void
write_in(struct run *r)
{
	while (r->off < r->len) {
		ssize_t k = write(r->in, r->json + r->off, r->len - r->off);

		if (k > 0) {
			r->off += (size_t)k;
			continue;
		}
		if (k == -1 && errno == EINTR)
			continue;
		if (k == -1 && errno == EAGAIN) {
			if (r->ev_in != NULL)
				event_add(r->ev_in, NULL);
			return;
		}
		/* EPIPE: it did not want its input */
		break;
	}
	close_in(r);
}

static void
on_in(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	write_in(arg);
}

static void
on_sigchld(evutil_socket_t fd, short what, void *arg)
{
	struct alertcmd *ac = arg;

	(void)fd;
	(void)what;
	for (size_t i = 0; i < ALERTRUN_MAX; i++)
		if (ac->runs[i] != NULL)
			check_done(ac->runs[i]);
}

static int
nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* p's program started in a free slot; p's strings taken over. */
static void
start(struct alertcmd *ac, struct pending *p)
{
	struct run *r = NULL;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, maxfd = 65536;
	struct rlimit rl;
	sigset_t all, old;
	size_t slot;
	struct timeval tv = { (time_t)p->timeout_s, 0 };

	for (slot = 0; slot < ALERTRUN_MAX && ac->runs[slot] != NULL; slot++)
		;
	if (slot == ALERTRUN_MAX)
		goto fail;
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || nonblock(in[1]) != 0 ||
	    nonblock(out[0]) != 0) {
		log_warn("alert-command: pipe");
		goto fail;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)maxfd)
		maxfd = (int)rl.rlim_cur;
	r = xcalloc(1, sizeof(*r));
	r->ac = ac;
	r->in = in[1];
	r->out = out[0];
	r->json = p->json;
	r->len = p->len;
	r->timeout_s = p->timeout_s;
	r->retry_s = p->retry_s;
	r->tries = p->tries + 1;
	p->json = NULL;
	r->timer = evtimer_new(ac->base, on_timer, r);
	r->ev_out = event_new(ac->base, r->out, EV_READ | EV_PERSIST, on_out, r);
	r->ev_in = event_new(ac->base, r->in, EV_WRITE, on_in, r);
	if (r->timer == NULL || r->ev_out == NULL || r->ev_in == NULL) {
		log_warnx("alert-command: cannot make its events");
		goto fail;
	}
	/* no signal handler of the daemon may run in the child before it
	 * resets them: blocked across the fork */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r->pid = fork();
	if (r->pid == 0)
		alertcmd_child(p->program, in[0], out[1], maxfd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r->pid == -1) {
		log_warn("alert-command: fork");
		goto fail;
	}
	(void)setpgid(r->pid, r->pid);	/* either side may be first */
	close(in[0]);
	close(out[1]);
	ac->runs[slot] = r;
	log_debug("alert-command [%ld]: %s started", (long)r->pid, p->program);
	r->program = p->program;
	p->program = NULL;
	event_add(r->ev_out, NULL);
	evtimer_add(r->timer, &tv);
	write_in(r);
	return;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] != -1 && (r == NULL || in[i] != r->in))
			close(in[i]);
		if (out[i] != -1 && (r == NULL || out[i] != r->out))
			close(out[i]);
	}
	if (r != NULL)
		run_free(r);
	free(p->program);
	free(p->json);
}

struct alertcmd *
alertcmd_open(struct event_base *base)
{
	struct alertcmd *ac = xcalloc(1, sizeof(*ac));

	ac->base = base;
	if ((ac->sigchld = evsignal_new(base, SIGCHLD, on_sigchld, ac)) == NULL ||
	    evsignal_add(ac->sigchld, NULL) != 0) {
		log_warnx("alert-command: cannot watch SIGCHLD");
		if (ac->sigchld != NULL)
			event_free(ac->sigchld);
		free(ac);
		return NULL;
	}
	return ac;
}

/* p started, or queued, or (the queue full) dropped; p's strings taken. */
static void
submit(struct alertcmd *ac, struct pending *p)
{
	size_t running = 0;

	for (size_t i = 0; i < ALERTRUN_MAX; i++)
		running += ac->runs[i] != NULL;
	if (running < ALERTRUN_MAX) {
		start(ac, p);
		return;
	}
	if (ac->qn == ALERTRUN_QUEUE_MAX) {
		log_warnx("alert-command: %d running and %d waiting; not run for this alert",
		    ALERTRUN_MAX, ALERTRUN_QUEUE_MAX);
		free(p->program);
		free(p->json);
		return;
	}
	ac->q[(ac->qhead + ac->qn++) % ALERTRUN_QUEUE_MAX] = *p;
}

void
alertcmd_run(struct alertcmd *ac, const char *program, unsigned timeout_s, unsigned retry_s,
    const char *json, size_t len)
{
	struct pending p;

	if (ac == NULL)
		return;
	if (len > ALERTRUN_INPUT_MAX) {
		log_warnx("alert-command: a change of %zu bytes; not run", len);
		return;
	}
	p.program = xstrdup(program);
	p.json = xmalloc(len + 1);
	memcpy(p.json, json, len);
	p.len = len;
	p.timeout_s = timeout_s;
	p.retry_s = retry_s;
	p.tries = 0;
	submit(ac, &p);
}

static bool
busy(const struct alertcmd *ac)
{
	for (size_t i = 0; i < ALERTRUN_MAX; i++)
		if (ac->runs[i] != NULL)
			return true;
	for (size_t i = 0; i < ALERTRUN_RETRY_MAX; i++)
		if (ac->retries[i] != NULL)
			return true;
	return ac->qn > 0;
}

void
alertcmd_wait(struct alertcmd *ac, const bool *stop)
{
	if (ac == NULL)
		return;
	while (busy(ac) && !*stop)
		if (event_base_loop(ac->base, EVLOOP_ONCE) == -1)
			break;
}

void
alertcmd_close(struct alertcmd *ac)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	bool left = false;

	if (ac == NULL)
		return;
	for (size_t i = 0; i < ALERTRUN_RETRY_MAX; i++)
		if (ac->retries[i] != NULL) {
			struct retry *rt = ac->retries[i];

			log_warnx("alert-command: stopping; an alert that failed %u times not "
			    "tried again", rt->p.tries);
			event_free(rt->ev);
			free(rt->p.program);
			free(rt->p.json);
			free(rt);
			ac->retries[i] = NULL;
		}
	if (ac->qn > 0)
		log_warnx("alert-command: stopping; %zu alerts not run", ac->qn);
	while (ac->qn > 0) {
		free(ac->q[ac->qhead].program);
		free(ac->q[ac->qhead].json);
		ac->qhead = (ac->qhead + 1) % ALERTRUN_QUEUE_MAX;
		ac->qn--;
	}
	for (size_t i = 0; i < ALERTRUN_MAX; i++)
		if (ac->runs[i] != NULL) {
			signal_group(ac->runs[i], SIGTERM);
			close_in(ac->runs[i]);
			close_out(ac->runs[i]);
		}
	/* at most 1 s for them to go, then SIGKILL */
	for (int t = 0; t <= 20; t++) {
		left = false;
		for (size_t i = 0; i < ALERTRUN_MAX; i++) {
			struct run *r = ac->runs[i];

			if (r == NULL)
				continue;
			if (t == 20)
				signal_group(r, SIGKILL);
			else if (waitpid(r->pid, NULL, WNOHANG) == r->pid) {
				ac->runs[i] = NULL;
				run_free(r);
				continue;
			}
			left = true;
		}
		if (!left)
			break;
		nanosleep(&ts, NULL);
	}
	for (size_t i = 0; i < ALERTRUN_MAX; i++)
		if (ac->runs[i] != NULL) {
			(void)waitpid(ac->runs[i]->pid, NULL, WNOHANG);
			run_free(ac->runs[i]);
		}
	event_free(ac->sigchld);
	free(ac);
}
