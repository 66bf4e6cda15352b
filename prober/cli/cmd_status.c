/*
 * cmd_status.c -- "scaleprobe status": what a running scaleprobed says on
 * its control socket (targets due, in flight, done this cycle, problems,
 * alerts open, packets rejected, scheduler lag), printed as it came but
 * for its control characters: whatever listens at the socket's path, and
 * whatever names a reply quotes, must not drive the terminal (textsafe.h).
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "log.h"
#include "textsafe.h"
#include "unixaddr.h"

/* The most of a reply printed: a status is a few hundred bytes, a list of
 * open alerts a few hundred kB; what is longer is cut, and said to be. */
#define STATUS_MAX	(4u << 20)

static void
status_usage(FILE *f)
{
	fprintf(f, "usage: scaleprobe status [-c FILE | SOCKET]\n"
	    "  SOCKET              the daemon's control socket (default: the control\n"
	    "                      setting of the configuration)\n"
	    "  -c, --config FILE   take the control setting from FILE\n"
	    "                      (default %s)\n"
	    "  -h, --help          this text\n", CONF_DEFAULT_PATH);
}

static int
status_read(const char *path)
{
	struct sockaddr_un sun;
	char buf[4096], *reply = NULL, *shown;
	size_t len = 0;
	ssize_t n = 0;
	int fd;

	if (unixaddr_set(&sun, path) != 0)
		return EXIT_USAGE;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		log_warn("%s (is scaleprobed running?)", path);
		if (fd != -1)
			close(fd);
		return EXIT_USAGE;
	}
	/* nothing to ask: said at once, or the daemon waits 0.2 s for a
	 * request (scaleprobed(8) CONTROL) */
	(void)shutdown(fd, SHUT_WR);
	/* read whole, so that a character is never escaped as two halves */
	while (len < STATUS_MAX && (n = read(fd, buf, sizeof(buf))) > 0) {
		size_t k = (size_t)n < STATUS_MAX - len ? (size_t)n : STATUS_MAX - len;

		reply = xrealloc(reply, len + k);
		memcpy(reply + len, buf, k);
		len += k;
	}
	close(fd);
	if (n < 0) {
		log_warn("%s", path);
		free(reply);
		return EXIT_USAGE;
	}
	shown = xmalloc(TEXTSAFE_SIZE(len));
	textsafe(shown, TEXTSAFE_SIZE(len), reply != NULL ? reply : "", len, TEXTSAFE_LINES);
	fputs(shown, stdout);
	free(shown);
	free(reply);
	if (len == STATUS_MAX)
		log_warnx("%s: the reply is longer than %u bytes: cut", path, STATUS_MAX);
	return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_USAGE;
}

static int
cmd_status(int argc, char **argv)
{
	const char *conf_path = CONF_DEFAULT_PATH, *sock = NULL;
	struct conf_errors e = { NULL, 0 };
	struct conf c;
	int ch, rc;

	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((ch = getopt_long(argc, argv, "+c:h", longopts, NULL)) != -1)
		switch (ch) {
		case 'c':
			conf_path = optarg;
			break;
		case 'h':
			status_usage(stdout);
			return EXIT_CLEAN;
		default:
			return EXIT_USAGE;	/* getopt_long said why, in one line */
		}
	if (optind + 1 == argc)
		sock = argv[optind];
	else if (optind != argc) {
		log_warnx("status: '%s': one SOCKET only (scaleprobe status --help)",
		    argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (sock != NULL)
		return status_read(sock);
	conf_init(&c);
	if (conf_load(&c, conf_path, &e) != 0) {
		char *text = conf_errors_text(&e);

		fputs(text, stderr);
		free(text);
		conf_errors_free(&e);
		conf_free(&c);
		return EXIT_USAGE;
	}
	conf_errors_free(&e);
	if (c.control == NULL) {
		log_warnx("%s: no control setting: scaleprobed has no control socket", conf_path);
		conf_free(&c);
		return EXIT_USAGE;
	}
	rc = status_read(c.control);
	conf_free(&c);
	return rc;
}

const struct cli_command cmd_status_entry = {
	.name = "status",
	.usage = "[-c FILE | SOCKET]",
	.summary = "what the running scaleprobed is doing (its control socket)",
	.run = cmd_status,
};
