/*
 * span.c -- when packets arrived at an interface, sampled every millisecond.
 *
 * usage: span IFNAME   (inside the namespace that owns IFNAME)
 * Prints "ready" on stderr once sampling, and at SIGTERM or SIGINT one line:
 *   first=T last=T span=S rx=N busiest_s=N
 * first/last: CLOCK_MONOTONIC seconds of the first and last change of
 * rx_packets; rx: packets since start; busiest_s: the most packets within
 * any one-second window (sliding, 1 ms steps).  A tool's own claim of its
 * rate is not a measurement; the receiving interface's counter is.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_MS 1000

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long
counter(int fd)
{
	char b[32];
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return 0;
	b[n] = '\0';
	return strtoull(b, NULL, 10);
}

int
main(int argc, char **argv)
{
	static unsigned long long ring[WINDOW_MS];
	unsigned long long rx0, rx, last_rx, busiest = 0;
	double first = 0, last = 0;
	char path[256];
	size_t tick = 0;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: span IFNAME\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", argv[1]);
	if ((fd = open(path, O_RDONLY)) < 0) {
		fprintf(stderr, "span: %s: cannot open\n", path);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rx0 = last_rx = counter(fd);
	for (size_t i = 0; i < WINDOW_MS; i++)
		ring[i] = rx0;
	fprintf(stderr, "ready\n");
	while (!stop) {
		struct timespec ms = { 0, 1000000 };
		double t;

		nanosleep(&ms, NULL);
		t = now();
		rx = counter(fd);
		if (rx != last_rx) {
			if (first == 0)
				first = t;
			last = t;
			last_rx = rx;
		}
		/* the packets of the last second: now minus a second ago */
		if (rx - ring[tick % WINDOW_MS] > busiest)
			busiest = rx - ring[tick % WINDOW_MS];
		ring[tick % WINDOW_MS] = rx;
		tick++;
	}
	printf("first=%.6f last=%.6f span=%.4f rx=%llu busiest_s=%llu\n",
	    first, last, last - first, last_rx - rx0, busiest);
	return 0;
}
