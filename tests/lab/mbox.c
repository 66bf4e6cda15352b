/*
 * mbox.c -- the lab's middlebox emulator: options, the NFQUEUE loop, signals.
 *
 *	mbox -q QNUM -f RULES [-r READYFILE] [-v]
 *	mbox -t -f RULES
 *
 * Binds netfilter queue QNUM (one queue instance serves IPv4 and IPv6),
 * copies whole packets to user space, lets mbox_mangle decide and rewrite,
 * and hands the verdict back.  The contract with the lab is MBOX.md.  This
 * file owns the I/O only; what happens to a packet is mbox_mangle.c.
 */
#include <sys/types.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "mbox_mangle.h"
#include "mbox_rules.h"

#define MBOX_RULES_MAX	(1 << 20)	/* a rules file is a few lines */
#define MBOX_PKT_MAX	0xffff		/* copy range: the whole packet */
#define MBOX_NLBUF	(MBOX_PKT_MAX + 8192)	/* a packet and its attributes */
#define MBOX_RCVBUF	(8 << 20)	/* bursts of TTL-limited SYNs */
#define MBOX_QMAXLEN	8192		/* packets waiting before fail-open */

/* The loop's state, shared with the netlink callback. */
struct mbox {
	struct mnl_socket	*nl;
	unsigned int		 qnum;
	const struct mbox_rules	*rules;
	int			 verbose;
	unsigned long		 seen, changed, dropped;
	uint8_t			 pkt[MBOX_PKT_MAX];	/* attribute lengths are 16 bits */
	/* netlink messages are built and read in place: aligned for their
	 * headers, whatever the odd length of pkt before them */
	_Alignas(struct nlmsghdr) char out[MBOX_NLBUF];	/* verdict messages */
	_Alignas(struct nlmsghdr) char in[MBOX_NLBUF];	/* received messages */
};
_Static_assert(offsetof(struct mbox, out) % _Alignof(struct nlmsghdr) == 0 &&
    offsetof(struct mbox, in) % _Alignof(struct nlmsghdr) == 0, "netlink buffers aligned");

static struct mbox mbox;

static void mbox_fatalx(const char *, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void mbox_fatal(const char *, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
mbox_fatalx(const char *fmt, ...)
{
	va_list ap;

	fputs("mbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* As mbox_fatalx, with strerror(errno) appended. */
static void
mbox_fatal(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	fputs("mbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
	exit(1);
}

static void
mbox_usage(void)
{
	fprintf(stderr, "usage: mbox -q QNUM -f RULES [-r READYFILE] [-v]\n"
	    "       mbox -t -f RULES\n");
	exit(2);
}

/* Reads and parses the rules file; prints every error and exits on any. */
static void
mbox_load_rules(const char *path, struct mbox_rules *rs)
{
	char *text;
	size_t len = 0;
	FILE *f;
	int n;

	if ((f = fopen(path, "r")) == NULL)
		mbox_fatal("%s", path);
	if ((text = malloc(MBOX_RULES_MAX + 1)) == NULL)
		mbox_fatal("malloc");
	len = fread(text, 1, MBOX_RULES_MAX + 1, f);
	if (ferror(f))
		mbox_fatal("%s", path);
	fclose(f);
	if (len > MBOX_RULES_MAX)
		mbox_fatalx("%s: larger than %d bytes", path, MBOX_RULES_MAX);
	n = mbox_rules_parse(rs, path, text, len);
	free(text);
	if (n < 0)
		mbox_fatalx("%s: out of memory", path);
	if (n > 0) {
		fputs(rs->errors, stderr);
		exit(1);
	}
}

/* Sends one verdict; the packet's new bytes go with it when it changed. */
static void
mbox_verdict(uint32_t id, enum mbox_verdict v, const uint8_t *pkt, size_t len)
{
	struct nlmsghdr *nlh;

	nlh = nfq_nlmsg_put(mbox.out, NFQNL_MSG_VERDICT, mbox.qnum);
	nfq_nlmsg_verdict_put(nlh, (int)id, v == MBOX_DROP ? NF_DROP : NF_ACCEPT);
	if (pkt != NULL)
		nfq_nlmsg_verdict_put_pkt(nlh, pkt, (uint32_t)len);
	if (mnl_socket_sendto(mbox.nl, nlh, nlh->nlmsg_len) < 0)
		fprintf(stderr, "mbox: verdict for packet %u: %s\n", id,
		    strerror(errno));
}

/* One queued packet: decide, rewrite, answer. */
static int
mbox_packet(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *attr[NFQA_MAX + 1];
	struct nfqnl_msg_packet_hdr *ph;
	struct mbox_result res;
	enum mbox_verdict v;
	uint32_t id;
	size_t len;

	(void)arg;
	memset(attr, 0, sizeof(attr));
	if (nfq_nlmsg_parse(nlh, attr) < 0 || attr[NFQA_PACKET_HDR] == NULL)
		return MNL_CB_OK;	/* no id: nothing to answer */
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	id = ntohl(ph->packet_id);
	mbox.seen++;
	/* no payload (bound before the copy mode was set) or a truncated one */
	if (attr[NFQA_PAYLOAD] == NULL || attr[NFQA_CAP_LEN] != NULL) {
		mbox_verdict(id, MBOX_ACCEPT, NULL, 0);
		return MNL_CB_OK;
	}
	len = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	memcpy(mbox.pkt, mnl_attr_get_payload(attr[NFQA_PAYLOAD]), len);
	v = mbox_mangle(mbox.rules, mbox.pkt, &len, &res);
	mbox_verdict(id, v, res.changed ? mbox.pkt : NULL, len);
	if (v == MBOX_DROP)
		mbox.dropped++;
	else if (res.changed)
		mbox.changed++;
	if (mbox.verbose && res.note[0] != '\0')
		fprintf(stderr, "mbox: %s\n", res.note);
	return MNL_CB_OK;
}

/*
 * Reads what is waiting on the socket and runs it through mbox_packet.
 * Returns mnl_cb_run's answer: MNL_CB_STOP on an ack, -1 on an error message
 * (errno set), MNL_CB_OK otherwise.
 */
static int
mbox_receive(unsigned int seq)
{
	ssize_t n;

	n = mnl_socket_recvfrom(mbox.nl, mbox.in, sizeof(mbox.in));
	if (n < 0) {
		if (errno == ENOBUFS || errno == EINTR || errno == EAGAIN)
			return MNL_CB_OK;	/* fail-open let them through */
		mbox_fatal("receive");
	}
	return mnl_cb_run(mbox.in, (size_t)n, seq, mnl_socket_get_portid(mbox.nl),
	    mbox_packet, NULL);
}

/*
 * Binds the queue, copy mode whole packet, fail-open, in one message, and
 * waits for the kernel's ack.  Packets queued before the ack are answered
 * meanwhile, so none is left waiting.
 */
static void
mbox_bind(void)
{
	struct nlmsghdr *nlh;
	unsigned int seq = (unsigned int)getpid();
	int one = 1, rcv = MBOX_RCVBUF, rc;

	if ((mbox.nl = mnl_socket_open(NETLINK_NETFILTER)) == NULL)
		mbox_fatal("netlink socket");
	if (mnl_socket_bind(mbox.nl, 0, MNL_SOCKET_AUTOPID) < 0)
		mbox_fatal("netlink bind");
	/* losing a message is survivable; ENOBUFS on every recv is not */
	setsockopt(mnl_socket_get_fd(mbox.nl), SOL_NETLINK, NETLINK_NO_ENOBUFS,
	    &one, sizeof(one));
	if (setsockopt(mnl_socket_get_fd(mbox.nl), SOL_SOCKET, SO_RCVBUFFORCE,
	    &rcv, sizeof(rcv)) < 0)
		setsockopt(mnl_socket_get_fd(mbox.nl), SOL_SOCKET, SO_RCVBUF,
		    &rcv, sizeof(rcv));

	nlh = nfq_nlmsg_put(mbox.out, NFQNL_MSG_CONFIG, mbox.qnum);
	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_BIND);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, MBOX_PKT_MAX);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, MBOX_QMAXLEN);
	/* a full queue lets packets through rather than stalling the lab */
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_FAIL_OPEN));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_FAIL_OPEN));
	if (mnl_socket_sendto(mbox.nl, nlh, nlh->nlmsg_len) < 0)
		mbox_fatal("queue %u: send config", mbox.qnum);
	while ((rc = mbox_receive(seq)) == MNL_CB_OK)
		;
	/* the kernel says EPERM both for a queue bound elsewhere and for us */
	if (rc < 0 && errno == EPERM)
		mbox_fatalx("cannot bind queue %u: taken by another process, "
		    "or no CAP_NET_ADMIN", mbox.qnum);
	if (rc < 0)
		mbox_fatal("cannot bind queue %u", mbox.qnum);
}

/* Writes "PID\n" to path, atomically: the lab may read it as soon as it appears. */
static void
mbox_ready(const char *path)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		mbox_fatalx("%s: name too long", path);
	if ((f = fopen(tmp, "w")) == NULL)
		mbox_fatal("%s", tmp);
	fprintf(f, "%ld\n", (long)getpid());
	if (fclose(f) != 0)
		mbox_fatal("%s", tmp);
	if (rename(tmp, path) != 0)
		mbox_fatal("%s", path);
}

int
main(int argc, char *argv[])
{
	struct mbox_rules rules;
	const char *rules_path = NULL, *ready = NULL;
	struct pollfd pfd[2];
	sigset_t sigs;
	long q = -1;
	char *end;
	int ch, check = 0, sfd;
	size_t i;

	while ((ch = getopt(argc, argv, "f:q:r:tv")) != -1) {
		switch (ch) {
		case 'f':
			rules_path = optarg;
			break;
		case 'q':
			errno = 0;
			q = strtol(optarg, &end, 10);
			if (errno || *optarg == '\0' || *end != '\0' || q < 0 ||
			    q > 65535) {
				fprintf(stderr, "mbox: -q: expected a queue number "
				    "0..65535, got '%s'\n", optarg);
				exit(2);
			}
			break;
		case 'r':
			ready = optarg;
			break;
		case 't':
			check = 1;
			break;
		case 'v':
			mbox.verbose = 1;
			break;
		default:
			mbox_usage();
		}
	}
	if (optind != argc || rules_path == NULL || (!check && q < 0))
		mbox_usage();

	mbox_load_rules(rules_path, &rules);
	if (check) {
		char line[128];

		for (i = 0; i < rules.nrules; i++) {
			mbox_rules_format(&rules.rule[i], line, sizeof(line));
			fputs(line, stdout);
		}
		return 0;
	}
	mbox.rules = &rules;
	mbox.qnum = (unsigned int)q;

	/* signals arrive as a readable fd, so none is lost between polls */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) != 0 ||
	    (sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) < 0)
		mbox_fatal("signalfd");
	if (ready != NULL && unlink(ready) != 0 && errno != ENOENT)
		mbox_fatal("%s", ready);	/* a stale one would lie */

	mbox_bind();
	if (ready != NULL)
		mbox_ready(ready);
	if (mbox.verbose)
		fprintf(stderr, "mbox: queue %u bound, %zu addresses\n",
		    mbox.qnum, rules.nrules);

	pfd[0].fd = mnl_socket_get_fd(mbox.nl);
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			mbox_fatal("poll");
		}
		if (pfd[1].revents)
			break;
		/* an error message answers one bad verdict: say so, go on */
		if (pfd[0].revents && mbox_receive(0) < 0)
			fprintf(stderr, "mbox: queue %u: %s\n", mbox.qnum,
			    strerror(errno));
	}

	if (ready != NULL)
		unlink(ready);
	if (mbox.verbose)
		fprintf(stderr, "mbox: %lu packets, %lu changed, %lu dropped\n",
		    mbox.seen, mbox.changed, mbox.dropped);
	mnl_socket_close(mbox.nl);
	mbox_rules_free(&rules);
	return 0;
}
