/*
 * send.c -- the only place packets leave scaleprobe, and the only libnet
 * user.  At open, libnet builds one SYN template per probe variant and
 * family (options laid out by hand, NOP-padded as Linux does); libnet is
 * done with after that.  Per probe the hot path copies a template, patches
 * addresses, ports, ISN, TSval, TTL / hop limit and flow label, adjusts the
 * IPv4 and TCP checksums incrementally (RFC 1624, wire_csum), and queues the
 * packet for one sendmmsg() per batch on a raw socket of its family.
 * Other segments (RST, ACK, data) are built by hand in send_segment.c.
 */
#define _GNU_SOURCE		/* sendmmsg, struct mmsghdr */

#include <libnet.h>

#include <sys/socket.h>

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "send_int.h"
#include "wire.h"
#include "wire_csum.h"
#include "wire_tcp.h"

/* The option bytes of a variant: Linux's order, NOP-padded; the control
 * SYN has four NOPs where a scale variant has NOP + window scale. */
static void
send_options(int scale, uint16_t mss, uint8_t o[SEND_OPT_LEN])
{
	memset(o, 0, SEND_OPT_LEN);
	o[0] = 2;			/* MSS */
	o[1] = 4;
	wire_put16(o + 2, mss);
	o[4] = 4;			/* SACK permitted */
	o[5] = 2;
	o[6] = 8;			/* timestamps: TSval patched, TSecr 0 */
	o[7] = 10;
	o[16] = 1;			/* NOP */
	if (scale == SEND_VARIANT_CONTROL) {
		o[17] = o[18] = o[19] = 1;
	} else {
		o[17] = 3;		/* window scale */
		o[18] = 3;
		o[19] = (uint8_t)scale;
	}
}

/* Checks that libnet laid out what we asked for: no EOL padding, the
 * length and data offset expected, checksums that verify. */
static int
send_check_template(const uint8_t *pkt, size_t iplen, const uint8_t *opts)
{
	const uint8_t *tcp = pkt + iplen;
	uint8_t zero[16] = {0};

	if (tcp[TCP_OFF] >> 4 != SEND_TCP_LEN / 4 || tcp[TCP_FLAGS] != WIRE_TH_SYN)
		return -1;
	if (memcmp(tcp + 20, opts, SEND_OPT_LEN) != 0)
		return -1;
	if (iplen == SEND_IP4_LEN) {
		if (pkt[0] != 0x45 || wire_get16(pkt + IP4_TOTLEN) != SEND_SYN4_LEN ||
		    wire_csum(pkt, SEND_IP4_LEN) != 0)
			return -1;
		return wire_tcp_csum4(zero, zero, tcp, SEND_TCP_LEN) == 0 ? 0 : -1;
	}
	if (pkt[0] >> 4 != 6 || wire_get16(pkt + IP6_PLEN) != SEND_TCP_LEN)
		return -1;
	return wire_tcp_csum6(zero, zero, tcp, SEND_TCP_LEN) == 0 ? 0 : -1;
}

/*
 * Builds every template with libnet: addresses, ports, ISN and TSval zero,
 * patched per probe.  libnet culls finished packets (checksums included)
 * only in its advanced link mode; a link handle on "lo", which every
 * network namespace has, is used for building only and never writes.
 */
static int
send_build_templates(struct sender *s, int want_v4, int want_v6, char *err,
    size_t errlen)
{
	char ebuf[LIBNET_ERRBUF_SIZE] = "";
	struct libnet_in6_addr zero6;
	uint8_t opts[SEND_OPT_LEN], *pkt;
	uint32_t len;
	libnet_t *l;
	int fam, v, ok;

	memset(&zero6, 0, sizeof(zero6));
	if ((l = libnet_init(LIBNET_LINK_ADV, "lo", ebuf)) == NULL) {
		snprintf(err, errlen, "libnet: %s", ebuf);
		return -1;
	}
	for (fam = 4; fam <= 6; fam += 2) {
		if ((fam == 4 && !want_v4) || (fam == 6 && !want_v6))
			continue;
		for (v = 0; v < s->cfg.nvariants; v++) {
			libnet_clear_packet(l);
			send_options(s->cfg.variant_scale[v], s->cfg.mss, opts);
			ok = libnet_build_tcp_options(opts, SEND_OPT_LEN, l, 0) != -1 &&
			    libnet_build_tcp(0, 0, 0, 0, WIRE_TH_SYN, s->cfg.window, 0, 0,
			    SEND_TCP_LEN, NULL, 0, l, 0) != -1;
			if (ok && fam == 4)
				ok = libnet_build_ipv4(SEND_SYN4_LEN, 0, 0, IP_DF,
				    SEND_TEMPLATE_TTL, IPPROTO_TCP, 0, 0, 0, NULL, 0,
				    l, 0) != -1;
			else if (ok)
				ok = libnet_build_ipv6(0, 0, SEND_TCP_LEN, IPPROTO_TCP,
				    SEND_TEMPLATE_TTL, zero6, zero6, NULL, 0, l, 0) != -1;
			if (!ok || libnet_adv_cull_packet(l, &pkt, &len) == -1) {
				snprintf(err, errlen, "libnet: %s", libnet_geterror(l));
				libnet_destroy(l);
				return -1;
			}
			if (fam == 4 && len == SEND_SYN4_LEN) {
				memcpy(s->tmpl4[v], pkt, len);
				ok = send_check_template(s->tmpl4[v], SEND_IP4_LEN, opts) == 0;
			} else if (fam == 6 && len == SEND_SYN6_LEN) {
				memcpy(s->tmpl6[v], pkt, len);
				/* libnet 1.1.6 misplaces traffic class and flow
				 * label; both are zero here, the label patched */
				wire_put32(s->tmpl6[v], 6u << 28);
				ok = send_check_template(s->tmpl6[v], SEND_IP6_LEN, opts) == 0;
			} else {
				ok = 0;
			}
			libnet_adv_free_packet(l, pkt);
			if (!ok) {
				snprintf(err, errlen, "libnet built an unexpected "
				    "IPv%d SYN template (%u bytes)", fam, len);
				libnet_destroy(l);
				return -1;
			}
		}
	}
	libnet_destroy(l);
	return 0;
}

/* A raw socket that takes whole IP packets (IPPROTO_RAW implies header
 * inclusion for both families). */
static int
send_socket(int af, char *err, size_t errlen)
{
	int fd, sz = SEND_SNDBUF;

	if ((fd = socket(af, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW)) == -1) {
		snprintf(err, errlen, "raw IPv%d socket: %s", af == AF_INET ? 4 : 6,
		    strerror(errno));
		return -1;
	}
	/* a deep send buffer so a burst of batches does not block; FORCE
	 * needs CAP_NET_ADMIN, the plain one is capped by wmem_max */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	return fd;
}

/* The sending thread's batch arrays, each message pointing at its iov
 * and sockaddr once; the iov's base is a ring slot, set per send. */
static int
send_out_init(struct send_out *o, int batch)
{
	o->msgs = calloc((size_t)batch, sizeof(*o->msgs));
	o->iov = calloc((size_t)batch, sizeof(*o->iov));
	o->to = calloc((size_t)batch, sizeof(*o->to));
	if (o->msgs == NULL || o->iov == NULL || o->to == NULL)
		return -1;
	for (int i = 0; i < batch; i++) {
		o->msgs[i].msg_hdr.msg_iov = &o->iov[i];
		o->msgs[i].msg_hdr.msg_iovlen = 1;
		o->msgs[i].msg_hdr.msg_name = &o->to[i];
	}
	return 0;
}

static void
send_out_free(struct send_out *o)
{
	free(o->msgs);
	free(o->iov);
	free(o->to);
}

/* Fills ss with dst (port 0: raw sockets take none); returns its length.
 * Only the bytes of the family's own struct are written: this runs per
 * probe. */
socklen_t
send_sockaddr(const struct addr *dst, struct sockaddr_storage *ss)
{
	if (dst->family == ADDR_V4) {
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		memcpy(&sin.sin_addr, dst->bytes, 4);
		memcpy(ss, &sin, sizeof(sin));
		return sizeof(sin);
	}
	struct sockaddr_in6 sin6;

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	memcpy(&sin6.sin6_addr, dst->bytes, 16);
	memcpy(ss, &sin6, sizeof(sin6));
	return sizeof(sin6);
}

static int
send_config_check(const struct send_config *cfg, char *err, size_t errlen)
{
	int v;

	if (cfg->nvariants < 1 || cfg->nvariants > SEND_MAX_VARIANTS) {
		snprintf(err, errlen, "send: %d variants (1..%d)", cfg->nvariants,
		    SEND_MAX_VARIANTS);
		return -1;
	}
	for (v = 0; v < cfg->nvariants; v++) {
		int sc = cfg->variant_scale[v];

		if (sc != SEND_VARIANT_CONTROL && (sc < 0 || sc > 255)) {
			snprintf(err, errlen, "send: window scale %d (0..255)", sc);
			return -1;
		}
	}
	if (cfg->batch < 0 || cfg->batch > SEND_MAX_BATCH) {
		snprintf(err, errlen, "send: batch %d (1..%d)", cfg->batch,
		    SEND_MAX_BATCH);
		return -1;
	}
	return 0;
}

struct sender *
sender_open(const struct send_config *cfg, int want_v4, int want_v6, char *err,
    size_t errlen)
{
	struct sender *s;

	if (send_config_check(cfg, err, errlen) == -1)
		return NULL;
	if (!want_v4 && !want_v6) {
		snprintf(err, errlen, "send: no address family asked for");
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "send: %s", strerror(errno));
		return NULL;
	}
	s->cfg = *cfg;
	if (s->cfg.mss == 0)
		s->cfg.mss = SEND_DEFAULT_MSS;
	if (s->cfg.window == 0)
		s->cfg.window = SEND_DEFAULT_WINDOW;
	if (s->cfg.batch == 0)
		s->cfg.batch = SEND_DEFAULT_BATCH;
	s->fd4 = s->fd6 = -1;
	if (pthread_mutex_init(&s->mu, NULL) != 0) {
		free(s);
		snprintf(err, errlen, "send: cannot make a mutex");
		return NULL;
	}
	sender_set_limit(s, 0);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->room, NULL);
	if (send_out_init(&s->out, s->cfg.batch) == -1 ||
	    (want_v4 && send_ring_init(&s->ring[0], SEND_RING_SLOTS) == -1) ||
	    (want_v6 && send_ring_init(&s->ring[1], SEND_RING_SLOTS) == -1)) {
		snprintf(err, errlen, "send: %s", strerror(errno));
		goto fail;
	}
	if (want_v4 && (s->fd4 = send_socket(AF_INET, err, errlen)) == -1)
		goto fail;
	if (want_v6 && (s->fd6 = send_socket(AF_INET6, err, errlen)) == -1)
		goto fail;
	if (send_build_templates(s, want_v4, want_v6, err, errlen) == -1)
		goto fail;
	return s;
fail:
	sender_close(s);
	return NULL;
}

int
sender_set_variants(struct sender *s, const struct send_config *cfg, char *err,
    size_t errlen)
{
	struct send_config old = s->cfg;

	if (send_config_check(cfg, err, errlen) == -1)
		return -1;
	(void)sender_flush(s);
	s->cfg.nvariants = cfg->nvariants;
	memcpy(s->cfg.variant_scale, cfg->variant_scale, sizeof(s->cfg.variant_scale));
	if (send_build_templates(s, s->fd4 != -1, s->fd6 != -1, err, errlen) == -1) {
		char ignored[256];

		/* the old templates were built once: they build again */
		s->cfg = old;
		(void)send_build_templates(s, s->fd4 != -1, s->fd6 != -1, ignored,
		    sizeof(ignored));
		return -1;
	}
	return 0;
}

/* Patches syn into a copy of its template at buf; the length, or 0. */
static size_t
send_render(const struct sender *s, const struct send_syn *syn, uint8_t *buf,
    size_t cap)
{
	uint8_t *tcp, ports[4], word[2];
	uint16_t ipc, tcpc;

	if (syn->variant < 0 || syn->variant >= s->cfg.nvariants ||
	    syn->src == NULL || syn->dst == NULL ||
	    syn->src->family != syn->dst->family)
		return 0;
	wire_put16(ports, syn->sport);
	wire_put16(ports + 2, syn->dport);

	if (syn->src->family == ADDR_V4) {
		if (cap < SEND_SYN4_LEN)
			return 0;
		memcpy(buf, s->tmpl4[syn->variant], SEND_SYN4_LEN);
		tcp = buf + SEND_IP4_LEN;
		ipc = wire_get16(buf + IP4_CSUM);
		tcpc = wire_get16(tcp + TCP_CSUM);
		/* addresses: in the IP header and in TCP's pseudo-header */
		ipc = wire_csum_update(ipc, buf + IP4_SRC, syn->src->bytes, 4);
		tcpc = wire_csum_update(tcpc, buf + IP4_SRC, syn->src->bytes, 4);
		memcpy(buf + IP4_SRC, syn->src->bytes, 4);
		ipc = wire_csum_update(ipc, buf + IP4_DST, syn->dst->bytes, 4);
		tcpc = wire_csum_update(tcpc, buf + IP4_DST, syn->dst->bytes, 4);
		memcpy(buf + IP4_DST, syn->dst->bytes, 4);
		word[0] = syn->ttl;
		word[1] = buf[IP4_TTL + 1];	/* protocol shares the word */
		ipc = wire_csum_update(ipc, buf + IP4_TTL, word, 2);
		buf[IP4_TTL] = syn->ttl;
		wire_put16(buf + IP4_CSUM, ipc);
	} else if (syn->src->family == ADDR_V6) {
		if (cap < SEND_SYN6_LEN)
			return 0;
		memcpy(buf, s->tmpl6[syn->variant], SEND_SYN6_LEN);
		tcp = buf + SEND_IP6_LEN;
		tcpc = wire_get16(tcp + TCP_CSUM);
		/* no IP checksum; flow label and hop limit are outside TCP's */
		wire_put32(buf, 6u << 28 | (syn->flow_label & 0xfffff));
		buf[IP6_HLIM] = syn->ttl;
		tcpc = wire_csum_update(tcpc, buf + IP6_SRC, syn->src->bytes, 16);
		memcpy(buf + IP6_SRC, syn->src->bytes, 16);
		tcpc = wire_csum_update(tcpc, buf + IP6_DST, syn->dst->bytes, 16);
		memcpy(buf + IP6_DST, syn->dst->bytes, 16);
	} else {
		return 0;
	}
	tcpc = wire_csum_update(tcpc, tcp + TCP_PORTS, ports, 4);
	memcpy(tcp + TCP_PORTS, ports, 4);
	tcpc = wire_csum_update32(tcpc, wire_get32(tcp + TCP_SEQ), syn->isn);
	wire_put32(tcp + TCP_SEQ, syn->isn);
	tcpc = wire_csum_update32(tcpc, wire_get32(tcp + TCP_TSVAL), syn->tsval);
	wire_put32(tcp + TCP_TSVAL, syn->tsval);
	wire_put16(tcp + TCP_CSUM, tcpc);
	return syn->src->family == ADDR_V4 ? SEND_SYN4_LEN : SEND_SYN6_LEN;
}

size_t
sender_render_syn(const struct sender *s, const struct send_syn *syn,
    uint8_t *buf, size_t cap)
{
	return send_render(s, syn, buf, cap);
}

int
sender_syn(struct sender *s, const struct send_syn *syn)
{
	struct send_slot *sl;
	size_t len;

	if (syn->src == NULL || syn->dst == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (send_fd(s, syn->dst->family) == -1) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if ((sl = send_slot_get(s, syn->dst->family)) == NULL) {
		errno = EPIPE;
		return -1;
	}
	if ((len = send_render(s, syn, sl->pkt, sizeof(sl->pkt))) == 0) {
		errno = EINVAL;
		return -1;
	}
	sl->len = (uint16_t)len;
	sl->family = syn->dst->family;
	sl->is_seg = 0;
	send_push(s, syn->dst->family);
	return 0;
}

/* The kernel's refusals come back from the thread: the first flush after
 * one reports it (the caller logs once per kind). */
int
sender_flush(struct sender *s)
{
	uint64_t n = s->pushed - s->pushed_told, errors;

	s->pushed_told = s->pushed;
	if (n > 0)
		send_kick(s, false);
	errors = atomic_load_explicit(&s->errors, memory_order_relaxed);
	if (errors != s->errors_told) {
		s->errors_told = errors;
		errno = atomic_load_explicit(&s->lasterr, memory_order_relaxed);
		return -1;
	}
	return n > INT_MAX ? INT_MAX : (int)n;
}

int
sender_drain(struct sender *s)
{
	int n = sender_flush(s);

	if (s->started)
		send_kick(s, true);
	return n;
}

void
sender_stats(const struct sender *s, struct send_stats *out)
{
	out->syns = atomic_load_explicit(&s->syns, memory_order_relaxed);
	out->segments = atomic_load_explicit(&s->segments, memory_order_relaxed);
	out->errors = atomic_load_explicit(&s->errors, memory_order_relaxed);
	out->batches = atomic_load_explicit(&s->batches, memory_order_relaxed);
}

void
sender_close(struct sender *s)
{
	if (s == NULL)
		return;
	send_thread_stop(s);
	if (s->fd4 != -1)
		close(s->fd4);
	if (s->fd6 != -1)
		close(s->fd6);
	send_ring_free(&s->ring[0]);
	send_ring_free(&s->ring[1]);
	send_out_free(&s->out);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->room);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
