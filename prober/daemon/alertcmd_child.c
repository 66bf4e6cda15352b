/*
 * alertcmd_child.c -- alert-command's child between fork and exec: every
 * signal at its default, its own process group, the pipes as its standard
 * descriptors and nothing else open, then the program with alertrun's
 * environment.  Async-signal-safe calls only (the daemon has threads).
 */
#define _GNU_SOURCE	/* SYS_close_range, F_DUPFD */

#include <sys/syscall.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "alertcmd_child.h"
#include "alertrun.h"

void
alertcmd_child(const char *program, int in, int out, int maxfd)
{
	struct sigaction sa;
	sigset_t none;
	char *argv[2] = { (char *)(uintptr_t)program, NULL };

	/* the daemon ignores SIGPIPE and its loop handles others: a program
	 * starts with every disposition at its default */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL);
	/* the C library keeps the signals below SIGRTMIN for its threads and
	 * refuses them to sigaction(); an ignored one inherited from whoever
	 * started the daemon would still pass to the program: reset by the
	 * system call itself (the kernel's struct: handler, flags, restorer,
	 * a 64-bit mask) */
	for (int s = 32; s < SIGRTMIN; s++) {
		struct {
			void (*handler)(int);
			unsigned long flags;
			void (*restorer)(void);
			uint64_t mask;
		} ksa = { SIG_DFL, 0, NULL, 0 };

		(void)syscall(SYS_rt_sigaction, s, &ksa, NULL, sizeof(ksa.mask));
	}
	(void)setpgid(0, 0);
	/* above 2 first, whatever numbers the pipes got */
	if ((in = fcntl(in, F_DUPFD, 3)) == -1 || (out = fcntl(out, F_DUPFD, 3)) == -1 ||
	    dup2(in, STDIN_FILENO) == -1 || dup2(out, STDOUT_FILENO) == -1 ||
	    dup2(out, STDERR_FILENO) == -1)
		_exit(127);
	/* the capture's packet sockets, the store, the control socket...:
	 * none of them is the program's, CLOEXEC or not */
	if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
		for (int fd = 3; fd < maxfd; fd++)
			(void)close(fd);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	execve(program, argv, (char *const *)(uintptr_t)alertrun_env);
	_exit(127);
}
