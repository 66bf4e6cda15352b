/*
 * listener.c -- a port in LISTEN state for the bench's AnyIP server.
 *
 * usage: listener PORT
 * The kernel answers every SYN (the backlog is the kernel's, capped by
 * somaxconn); this process only accepts and closes, so the port is open.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_in a;
	int fd, one = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: listener PORT\n");
		return 2;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) {
		perror("listener: socket");
		return 1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 65535) < 0) {
		perror("listener: bind/listen");
		return 1;
	}
	fprintf(stderr, "ready\n");
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c >= 0)
			close(c);
	}
}
