/*
 * synack_echo.c -- the replay attacker of tests/e2e/replay-e2e: run inside
 * a lab namespace the prober's SYN-ACKs pass through, it sniffs every
 * IPv4/IPv6 SYN-ACK leaving IFACE and sends COPIES exact copies of its
 * frame back out of IFACE, toward the prober, until TOTAL copies are sent
 * in all.  Copies go in sendmmsg batches from the socket that sniffs: the
 * kernel never hands a packet socket its own frames, so copies are never
 * copied again.
 *
 * usage: synack_echo IFACE TOTAL COPIES
 *
 * Runs until TOTAL copies are sent or SIGTERM/SIGINT; then prints one line
 * "synack_echo: seen N sent N failed N" on stdout.  Prints "listening" on
 * stderr once the socket is bound.
 */
#define _GNU_SOURCE		/* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 256
#define FRAME_MAX 2048

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Whether the Ethernet frame f holds a TCP segment with SYN and ACK set
 * (and no RST). */
static int
is_synack(const uint8_t *f, size_t len)
{
	size_t l3 = ETH_HLEN, l4;
	uint16_t type;
	uint8_t flags;

	if (len < ETH_HLEN)
		return 0;
	type = (uint16_t)(f[12] << 8 | f[13]);
	if (type == ETH_P_IP) {
		if (len < l3 + 20 || f[l3 + 9] != IPPROTO_TCP || (f[l3] >> 4) != 4)
			return 0;
		l4 = l3 + (size_t)(f[l3] & 0x0f) * 4;
	} else if (type == ETH_P_IPV6) {
		if (len < l3 + 40 || f[l3 + 6] != IPPROTO_TCP)
			return 0;
		l4 = l3 + 40;
	} else {
		return 0;
	}
	if (len < l4 + 20)
		return 0;
	flags = f[l4 + 13];
	return (flags & 0x16) == 0x12;
}

int
main(int argc, char **argv)
{
	unsigned long long total, copies, seen = 0, sent = 0, failed = 0;
	struct sockaddr_ll sll;
	struct mmsghdr msgs[BATCH];
	struct iovec iov;
	uint8_t frame[FRAME_MAX];
	unsigned ifindex;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: synack_echo IFACE TOTAL COPIES\n");
		return 2;
	}
	total = strtoull(argv[2], NULL, 10);
	copies = strtoull(argv[3], NULL, 10);
	if ((ifindex = if_nametoindex(argv[1])) == 0 || total == 0 || copies == 0) {
		fprintf(stderr, "synack_echo: bad interface, TOTAL or COPIES\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if ((fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL))) < 0) {
		perror("synack_echo: socket");
		return 1;
	}
	{
		/* SYN-ACKs queue here while copies go out */
		int rcv = 8 << 20;

		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		perror("synack_echo: bind");
		return 1;
	}
	fprintf(stderr, "listening\n");
	while (!stop && sent < total) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		unsigned long long want;
		ssize_t n;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recvfrom(fd, frame, sizeof(frame), MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fl);
		if (n <= 0 || from.sll_pkttype != PACKET_OUTGOING ||
		    !is_synack(frame, (size_t)n))
			continue;
		seen++;
		want = copies < total - sent ? copies : total - sent;
		iov.iov_base = frame;
		iov.iov_len = (size_t)n;
		while (want > 0 && !stop) {
			unsigned k = want < BATCH ? (unsigned)want : BATCH;
			int r;

			memset(msgs, 0, sizeof(msgs));
			for (unsigned i = 0; i < k; i++) {
				msgs[i].msg_hdr.msg_iov = &iov;
				msgs[i].msg_hdr.msg_iovlen = 1;
			}
			r = sendmmsg(fd, msgs, k, 0);
			if (r <= 0) {
				if (r < 0 && errno != ENOBUFS && errno != EAGAIN &&
				    errno != EINTR) {
					perror("synack_echo: sendmmsg");
					stop = 1;
				}
				failed++;
				if (failed > 1000000)
					stop = 1;
				continue;
			}
			sent += (unsigned)r;
			want -= (unsigned)r;
		}
	}
	printf("synack_echo: seen %llu sent %llu failed %llu\n", seen, sent, failed);
	close(fd);
	return 0;
}
