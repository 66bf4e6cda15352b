/*
 * hostile.c -- the hostile host of tests/e2e/hostile-e2e: run in a
 * namespace of the test's own whose link IFACE leads to the prober, it
 * listens on TCP port 7 (the prober scans it: the kernel's SYN-ACKs are
 * real; an instance already listening serves) and, from the first SYN the
 * prober sends it, for SECONDS, sends the prober PPS packets a second of
 * every kind below in turn (paced per millisecond, so two cores still run
 * the scan), to the prober's port block (the SYN's source port, rounded
 * down to the guard's 64), plus DUPS copies of each SYN-ACK its own kernel
 * sends the prober.  No packet a probe of the prober's could have drawn:
 * the forged ones carry acks and quotes of no SYN it sent.  Own code,
 * none of the prober's parsers.
 *
 * usage: hostile IFACE PPS SECONDS DUPS PROBER4 PROBER6 ME4 ME6 SPOOF4 SPOOF6
 *                [PORT_LO PROBER_MAC]
 *   PROBER4/6  the prober's addresses on IFACE's link
 *   ME4/6      ours on it
 *   SPOOF4/6   a target the prober scans (port 80): forged SYN-ACKs come
 *              from its 4-tuples, forged quotes name its probes
 *   PORT_LO PROBER_MAC  flood at once, without waiting for a SYN: the
 *              prober's port block and its MAC on the link
 * SECONDS (may be fractional) 0: only listen (a clean run's host), until
 * SIGTERM.  env HOSTILE_ONLY=KIND: that kind alone.
 * Prints "listening" on stderr when ready; at the end one line per kind,
 * "hostile: KIND N REASON" (the reason the prober should count it under),
 * then "hostile: sent N failed N".  SIGTERM/SIGINT end it early.
 */
#define _GNU_SOURCE		/* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX 256
#define TICK_NS 1000000ll	/* one batch a millisecond */
#define BATCH_MAX 256
#define BLOCK 64		/* the prober's guard block of source ports */
#define NVARIANTS 4		/* control + scales 0, 7, 14: ports of ours */
#define LISTEN_PORT 7
#define FAKE_PORT 81		/* a port of ours nothing probes */

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct ctx {
	uint8_t ours[6], prober[6];	/* MACs */
	uint8_t p4[4], p6[16], s4[4], s6[16], me4[4], me6[16];
	uint16_t port_lo;
	uint32_t rnd;
	unsigned seq;			/* packets built: varies the ports */
};

/* xorshift: forged acks and sequence numbers; never a SYN's ISN + 1 but
 * by a 2^-32 chance per packet */
static uint32_t
rnd(struct ctx *c)
{
	c->rnd ^= c->rnd << 13;
	c->rnd ^= c->rnd >> 17;
	c->rnd ^= c->rnd << 5;
	return c->rnd;
}

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* The Internet checksum of n bytes at p, on top of the partial sum s (a
 * pseudo-header's), folded and complemented. */
static uint16_t
csum(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s += i & 1 ? p[i] : (uint32_t)p[i] << 8;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The L4 checksum of l4 (n bytes) under the IP header at ip. */
static uint16_t
l4_sum(const uint8_t *ip, int v6, uint8_t proto, const uint8_t *l4, size_t n)
{
	uint32_t s = 0;

	for (size_t i = v6 ? 8 : 12; i < (v6 ? 40u : 20u); i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	return csum(s + proto + (uint32_t)n, l4, n);
}

/* An IP header at b for l4len bytes of proto from src to dst; its length. */
static size_t
ip_hdr(uint8_t *b, int v6, uint8_t proto, const uint8_t *src, const uint8_t *dst,
    size_t l4len)
{
	if (v6) {
		memset(b, 0, 40);
		b[0] = 0x60;
		put16(b + 4, (unsigned)l4len);
		b[6] = proto;
		b[7] = 60;
		memcpy(b + 8, src, 16);
		memcpy(b + 24, dst, 16);
		return 40;
	}
	memset(b, 0, 20);
	b[0] = 0x45;
	put16(b + 2, (unsigned)(20 + l4len));
	b[6] = 0x40;
	b[8] = 60;
	b[9] = proto;
	memcpy(b + 12, src, 4);
	memcpy(b + 16, dst, 4);
	put16(b + 10, csum(0, b, 20));
	return 20;
}

/* A TCP segment (sport -> dport, options opts) in an IP packet at b; its
 * length.  Checksums right. */
static size_t
tcp_pkt(uint8_t *b, int v6, const uint8_t *src, const uint8_t *dst, unsigned sport,
    unsigned dport, uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *opts,
    size_t optlen)
{
	size_t h = ip_hdr(b, v6, 6, src, dst, 20 + optlen);
	uint8_t *t = b + h;

	memset(t, 0, 20);
	put16(t, sport);
	put16(t + 2, dport);
	put32(t + 4, seq);
	put32(t + 8, ack);
	t[12] = (uint8_t)((5 + optlen / 4) << 4);
	t[13] = flags;
	put16(t + 14, 65535);
	if (optlen > 0)	/* opts may be NULL then */
		memcpy(t + 20, opts, optlen);
	put16(t + 16, l4_sum(b, v6, 6, t, 20 + optlen));
	return h + 20 + optlen;
}

/* Our next port of the prober's (one of its variants'). */
static unsigned
port(struct ctx *c)
{
	return c->port_lo + c->seq % NVARIANTS;
}

/* A SYN-ACK forged from the scanned target's 4-tuple, with opts. */
static size_t
forged_synack(struct ctx *c, uint8_t *b, int v6, const uint8_t *opts, size_t optlen)
{
	return tcp_pkt(b, v6, v6 ? c->s6 : c->s4, v6 ? c->p6 : c->p4, 80, port(c),
	    rnd(c), rnd(c), 0x12, opts, optlen);
}

static const uint8_t linux_opts[20] = {
	2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
};

static size_t
k_synack(struct ctx *c, uint8_t *b, int v6)
{
	return forged_synack(c, b, v6, linux_opts, sizeof(linux_opts));
}

/* RST and RST-ACK from a port of ours nothing probed (never the window
 * test's connection: that judges RSTs itself). */
static size_t
k_rst(struct ctx *c, uint8_t *b, int v6)
{
	return tcp_pkt(b, v6, v6 ? c->me6 : c->me4, v6 ? c->p6 : c->p4, FAKE_PORT,
	    port(c), rnd(c), rnd(c), c->seq & 1 ? 0x14 : 0x04, NULL, 0);
}

/* A SYN-ACK answering a probe never sent (our own address, a port the
 * prober never probed here). */
static size_t
k_unsent(struct ctx *c, uint8_t *b, int v6)
{
	return tcp_pkt(b, v6, v6 ? c->me6 : c->me4, v6 ? c->p6 : c->p4, FAKE_PORT,
	    port(c), rnd(c), rnd(c), 0x12, linux_opts, sizeof(linux_opts));
}

static size_t
k_optlen0(struct ctx *c, uint8_t *b, int v6)
{
	static const uint8_t o[] = { 2, 0, 5, 0xb4, 1, 1, 1, 1 };

	return forged_synack(c, b, v6, o, sizeof(o));
}

static size_t
k_optlen1(struct ctx *c, uint8_t *b, int v6)
{
	static const uint8_t o[] = { 1, 3, 1, 7 };

	return forged_synack(c, b, v6, o, sizeof(o));
}

static size_t
k_optpast(struct ctx *c, uint8_t *b, int v6)
{
	static const uint8_t o[] = { 8, 10, 0, 0, 0, 1, 1, 1 };	/* TS of 10 in 8 */

	return forged_synack(c, b, v6, o, sizeof(o));
}

static size_t
k_badsum(struct ctx *c, uint8_t *b, int v6)
{
	size_t n = k_synack(c, b, v6);

	b[(v6 ? 40 : 20) + 17] ^= 0x5a;
	return n;
}

/* Data offset 4, or 15 in a 40-byte datagram. */
static size_t
k_doff(struct ctx *c, uint8_t *b, int v6)
{
	size_t n = forged_synack(c, b, v6, NULL, 0);

	b[(v6 ? 40 : 20) + 12] = c->seq & 1 ? 4 << 4 : 15 << 4;
	return n;
}

/* IPv4 IHL 15 (60 bytes) in a datagram whose total length says 40 (or 60,
 * leaving no TCP at all); the ports repeated where IHL puts them, so the
 * capture's filter passes it. */
static size_t
k_ihl(struct ctx *c, uint8_t *b, int v6)
{
	size_t n = forged_synack(c, b, 0, NULL, 0);

	(void)v6;
	memset(b + n, 0, 80 - n);
	memcpy(b + 60, b + 20, 20);
	b[0] = 0x4f;
	put16(b + 2, c->seq & 1 ? 60 : 40);
	put16(b + 10, 0);
	put16(b + 10, csum(0, b, 60));
	return 80;
}

/* IPv4 total length 30 / IPv6 payload length 10: the datagram ends inside
 * the TCP header that follows. */
static size_t
k_shortlen(struct ctx *c, uint8_t *b, int v6)
{
	size_t n = forged_synack(c, b, v6, NULL, 0);

	if (v6) {
		put16(b + 4, 10);
	} else {
		put16(b + 2, 30);
		put16(b + 10, 0);
		put16(b + 10, csum(0, b, 20));
	}
	return n;
}

/* Cut inside the TCP header: IPv4 of 40 sent as 30 bytes, IPv6 payload
 * length 100 with 12 bytes. */
static size_t
k_truncated(struct ctx *c, uint8_t *b, int v6)
{
	forged_synack(c, b, v6, NULL, 0);
	if (v6) {
		put16(b + 4, 100);
		return 52;
	}
	return 30;
}

/* An ICMP error from us to the prober quoting q (qlen bytes): time
 * exceeded, or (unreach) administratively prohibited. */
static size_t
icmp_pkt(struct ctx *c, uint8_t *b, int v6, const uint8_t *q, size_t qlen, int unreach)
{
	size_t h = ip_hdr(b, v6, v6 ? 58 : 1, v6 ? c->me6 : c->me4, v6 ? c->p6 : c->p4,
	    8 + qlen);
	uint8_t *m = b + h;

	memset(m, 0, 8);
	m[0] = v6 ? (unreach ? 1 : 3) : (unreach ? 3 : 11);
	m[1] = unreach ? (v6 ? 1 : 13) : 0;
	memcpy(m + 8, q, qlen);
	put16(m + 2, v6 ? l4_sum(b, 1, 58, m, 8 + qlen) : csum(0, m, 8 + qlen));
	return h + 8 + qlen;
}

/* A quote of the prober's probe to the scanned target (its port, the
 * target's) with a sequence number it never sent. */
static size_t
other_probe(struct ctx *c, uint8_t *q, int v6)
{
	static const uint8_t syn_opts[20] = {
		2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
	};

	return tcp_pkt(q, v6, v6 ? c->p6 : c->p4, v6 ? c->s6 : c->s4, port(c), 80,
	    rnd(c), 0, 0x02, syn_opts, sizeof(syn_opts));
}

static size_t
k_quote_other(struct ctx *c, uint8_t *b, int v6)
{
	uint8_t q[FRAME_MAX];
	size_t n = other_probe(c, q, v6);

	return icmp_pkt(c, b, v6, q, n, c->seq & 1);
}

static size_t
k_quote_garbage(struct ctx *c, uint8_t *b, int v6)
{
	uint8_t q[48];

	for (size_t i = 0; i < sizeof(q); i++)
		q[i] = (uint8_t)rnd(c);
	q[0] = 0xa5;		/* no IP version */
	return icmp_pkt(c, b, v6, q, sizeof(q), 0);
}

static size_t
k_icmp_badsum(struct ctx *c, uint8_t *b, int v6)
{
	size_t n = k_quote_other(c, b, v6);

	b[(v6 ? 40 : 20) + 3] ^= 0x33;
	return n;
}

struct kind {
	const char *name;
	size_t (*build)(struct ctx *, uint8_t *, int);
	int v6;			/* -1: both, alternating */
	const char *reason;	/* what the prober counts it as */
	unsigned long long sent;
};

static struct kind kinds[] = {
	{ "synack-wrong-ack", k_synack, -1, "unknown-flow", 0 },
	{ "rst-wrong-ack", k_rst, -1, "unknown-flow", 0 },
	{ "reply-never-sent", k_unsent, -1, "unknown-flow", 0 },
	{ "option-length-0", k_optlen0, -1, "bad-option", 0 },
	{ "option-length-1", k_optlen1, -1, "bad-option", 0 },
	{ "option-past-header", k_optpast, -1, "bad-option", 0 },
	{ "tcp-checksum", k_badsum, -1, "bad-checksum", 0 },
	{ "data-offset-lies", k_doff, -1, "bad-header", 0 },
	{ "ipv4-ihl-lies", k_ihl, 0, "bad-header", 0 },
	{ "ip-length-lies", k_shortlen, -1, "bad-header", 0 },
	{ "truncated", k_truncated, -1, "truncated", 0 },
	{ "icmp-quotes-other-probe", k_quote_other, -1, "unknown-quote", 0 },
	{ "icmp-quotes-garbage", k_quote_garbage, -1, "bad-quote", 0 },
	{ "icmp-checksum", k_icmp_badsum, -1, "bad-checksum", 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static unsigned long long dup_sent;

/* Whether frame f (n bytes, Ethernet) is a TCP segment with exactly flags
 * among SYN, ACK, RST; *sport, *v6 and the L3 offset of what it carries. */
static int
tcp_flags_are(const uint8_t *f, size_t n, uint8_t want, unsigned *sport, int *v6)
{
	size_t l4;
	unsigned type;

	if (n < 14)
		return 0;
	type = (unsigned)(f[12] << 8 | f[13]);
	if (type == ETH_P_IP && n >= 34 && f[14 + 9] == 6) {
		l4 = 14 + (size_t)(f[14] & 0x0f) * 4;
		*v6 = 0;
	} else if (type == ETH_P_IPV6 && n >= 54 && f[14 + 6] == 6) {
		l4 = 54;
		*v6 = 1;
	} else {
		return 0;
	}
	if (n < l4 + 20)
		return 0;
	*sport = (unsigned)(f[l4] << 8 | f[l4 + 1]);
	return (f[l4 + 13] & 0x16) == want;
}

static int
parse_addr(int af, const char *s, uint8_t *out)
{
	if (inet_pton(af, s, out) != 1) {
		fprintf(stderr, "hostile: bad address %s\n", s);
		return -1;
	}
	return 0;
}

/* TCP port 7 on every address (v4 and v6): the kernel answers the
 * prober's SYNs, and those SYN-ACKs are what DUPS copies. */
static int
listen7(void)
{
	struct sockaddr_in6 a;
	int fd, off = 0, on = 1, e;

	if ((fd = socket(AF_INET6, SOCK_STREAM, 0)) < 0)
		return -1;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(LISTEN_PORT);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1024) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void
send_frames(int fd, uint8_t (*frames)[FRAME_MAX + 14], const size_t *lens, unsigned k,
    unsigned long long *sent, unsigned long long *failed, const int *kind)
{
	struct mmsghdr msgs[BATCH_MAX];
	struct iovec iov[BATCH_MAX];
	unsigned done = 0;

	memset(msgs, 0, sizeof(msgs));
	for (unsigned i = 0; i < k; i++) {
		iov[i].iov_base = frames[i];
		iov[i].iov_len = lens[i];
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (done < k) {
		int r = sendmmsg(fd, msgs + done, k - done, 0);

		if (r <= 0) {
			/* that frame is lost: counted failed, never sent */
			(*failed)++;
			done++;
			continue;
		}
		for (int i = 0; i < r; i++) {
			if (kind[done + (unsigned)i] >= 0)
				kinds[kind[done + (unsigned)i]].sent++;
			else
				dup_sent++;
		}
		*sent += (unsigned)r;
		done += (unsigned)r;
	}
}

int
main(int argc, char **argv)
{
	static uint8_t frames[BATCH_MAX][FRAME_MAX + 14];
	size_t lens[BATCH_MAX];
	int kind[BATCH_MAX];
	unsigned long long sent = 0, failed = 0, made = 0;
	struct sockaddr_ll sll;
	struct ctx c;
	int64_t t_end = 0, tick;
	unsigned pps, dups, ifindex, per_tick;
	double seconds;
	int fd, lfd, started = 0, only = -1;
	const char *only_name = getenv("HOSTILE_ONLY");

	if (argc != 11 && argc != 13) {
		fprintf(stderr, "usage: hostile IFACE PPS SECONDS DUPS PROBER4 PROBER6 ME4 ME6 "
		    "SPOOF4 SPOOF6 [PORT_LO PROBER_MAC]\n");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	pps = (unsigned)strtoul(argv[2], NULL, 10);
	seconds = strtod(argv[3], NULL);
	dups = (unsigned)strtoul(argv[4], NULL, 10);
	if ((ifindex = if_nametoindex(argv[1])) == 0 || pps == 0 || pps > 200000 ||
	    !(seconds >= 0 && seconds <= 3600) || dups > 16) {
		fprintf(stderr, "hostile: bad interface, PPS (1..200000), SECONDS (0..3600) "
		    "or DUPS (0..16)\n");
		return 2;
	}
	if (parse_addr(AF_INET, argv[5], c.p4) || parse_addr(AF_INET6, argv[6], c.p6) ||
	    parse_addr(AF_INET, argv[7], c.me4) || parse_addr(AF_INET6, argv[8], c.me6) ||
	    parse_addr(AF_INET, argv[9], c.s4) || parse_addr(AF_INET6, argv[10], c.s6))
		return 2;
	for (size_t i = 0; only_name != NULL && i < NKINDS; i++)
		if (strcmp(kinds[i].name, only_name) == 0)
			only = (int)i;
	if (only_name != NULL && only < 0) {
		fprintf(stderr, "hostile: no kind %s\n", only_name);
		return 2;
	}
	per_tick = (unsigned)((pps + 999) / 1000);
	if (per_tick > BATCH_MAX - 16)
		per_tick = BATCH_MAX - 16;
	c.rnd = (uint32_t)getpid() * 2654435761u | 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	/* a host that lives longer than one flood may listen already */
	if ((lfd = listen7()) < 0 && errno != EADDRINUSE) {
		perror("hostile: listen on port 7");
		return 1;
	}
	/* one socket sniffs the link and sends: the kernel never hands a
	 * packet socket its own frames */
	sll = (struct sockaddr_ll){ .sll_family = AF_PACKET,
	    .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)ifindex };
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		perror("hostile: packet socket");
		return 1;
	}
	if (argc == 13) {
		unsigned m[6];
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
		if (sscanf(argv[12], "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		    &m[5]) != 6 || ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
			fprintf(stderr, "hostile: bad PROBER_MAC, or no MAC of %s\n", argv[1]);
			return 2;
		}
		for (int i = 0; i < 6; i++)
			c.prober[i] = (uint8_t)m[i];
		memcpy(c.ours, ifr.ifr_hwaddr.sa_data, 6);
		c.port_lo = (uint16_t)(strtoul(argv[11], NULL, 10) & ~(BLOCK - 1u));
		started = seconds > 0;
		t_end = now_ns() + (int64_t)(seconds * 1e9);
	}
	fprintf(stderr, "listening\n");
	tick = now_ns();
	while (!stop && (!started || now_ns() < t_end)) {
		unsigned k = 0;

		/* what the link brought: the first SYN starts the flood, our
		 * kernel's SYN-ACKs are copied */
		for (;;) {
			struct sockaddr_ll from;
			socklen_t fl = sizeof(from);
			uint8_t f[2048];
			unsigned sport;
			int v6;
			ssize_t n = recvfrom(fd, f, sizeof(f), MSG_DONTWAIT,
			    (struct sockaddr *)&from, &fl);

			if (n <= 0)
				break;
			if (from.sll_pkttype != PACKET_OUTGOING &&
			    tcp_flags_are(f, (size_t)n, 0x02, &sport, &v6) && !started &&
			    seconds > 0) {
				memcpy(c.prober, f + 6, 6);
				memcpy(c.ours, f, 6);
				c.port_lo = (uint16_t)(sport & ~(BLOCK - 1));
				started = 1;
				t_end = now_ns() + (int64_t)(seconds * 1e9);
				tick = now_ns();
				fprintf(stderr, "hostile: first SYN from port %u: flooding "
				    "ports %u-%u\n", sport, c.port_lo, c.port_lo + NVARIANTS - 1);
			} else if (from.sll_pkttype == PACKET_OUTGOING && started &&
			    tcp_flags_are(f, (size_t)n, 0x12, &sport, &v6) &&
			    sport == LISTEN_PORT && (size_t)n <= FRAME_MAX + 14) {
				for (unsigned d = 0; d < dups && k < BATCH_MAX; d++) {
					memcpy(frames[k], f, (size_t)n);
					lens[k] = (size_t)n;
					kind[k++] = -1;
				}
			}
		}
		if (started) {
			/* the frames due by now, a millisecond's worth at most
			 * ahead: a late tick is not made up in a burst */
			if (now_ns() - tick > 10 * TICK_NS)
				tick = now_ns() - TICK_NS;
			while (tick <= now_ns() && k + per_tick <= BATCH_MAX) {
				for (unsigned i = 0; i < per_tick; i++, made++) {
					unsigned ki = only >= 0 ? (unsigned)only :
					    (unsigned)(made % NKINDS);
					int v6 = kinds[ki].v6 >= 0 ? kinds[ki].v6 :
					    (int)((made / NKINDS) & 1);

					c.seq = (unsigned)(made / NKINDS / 2);
					memcpy(frames[k], c.prober, 6);
					memcpy(frames[k] + 6, c.ours, 6);
					put16(frames[k] + 12, v6 ? ETH_P_IPV6 : ETH_P_IP);
					lens[k] = 14 + kinds[ki].build(&c, frames[k] + 14, v6);
					kind[k++] = (int)ki;
				}
				tick += TICK_NS;
			}
		}
		if (k > 0)
			send_frames(fd, frames, lens, k, &sent, &failed, kind);
		{
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int64_t wait = started ? (tick - now_ns()) / 1000000 : 100;

			poll(&p, 1, wait > 0 ? (int)wait : 0);
		}
	}
	for (size_t i = 0; i < NKINDS; i++)
		printf("hostile: %s %llu %s\n", kinds[i].name, kinds[i].sent, kinds[i].reason);
	printf("hostile: duplicate-synack %llu duplicate\n", dup_sent);
	printf("hostile: sent %llu failed %llu\n", sent, failed);
	close(fd);
	if (lfd >= 0)
		close(lfd);
	return 0;
}
