/*
 * send_segment.c -- every segment but the SYNs (RST, ACK, the window
 * test's data), built by hand on the slow path: those that fit a slot
 * (RSTs and ACKs: one per SYN-ACK at full speed) join the SYNs' queue, in
 * order behind them; longer ones go out alone once the ring is empty.
 */
#define _GNU_SOURCE		/* sendmmsg, struct mmsghdr */

#include <sys/socket.h>

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "send_int.h"
#include "wire.h"
#include "wire_csum.h"

/* Writes the IP header of a segment of l4len bytes; returns its length. */
static size_t
send_put_ip(uint8_t *buf, const struct send_segment *seg, size_t l4len)
{
	if (seg->src->family == ADDR_V4) {
		memset(buf, 0, SEND_IP4_LEN);
		buf[0] = 0x45;
		wire_put16(buf + IP4_TOTLEN, (uint16_t)(SEND_IP4_LEN + l4len));
		wire_put16(buf + 6, 0x4000);		/* DF; id 0 as Linux */
		buf[IP4_TTL] = seg->ttl;
		buf[IP4_TTL + 1] = IPPROTO_TCP;
		memcpy(buf + IP4_SRC, seg->src->bytes, 4);
		memcpy(buf + IP4_DST, seg->dst->bytes, 4);
		wire_put16(buf + IP4_CSUM, wire_csum(buf, SEND_IP4_LEN));
		return SEND_IP4_LEN;
	}
	memset(buf, 0, SEND_IP6_LEN);
	wire_put32(buf, 6u << 28 | (seg->flow_label & 0xfffff));
	wire_put16(buf + IP6_PLEN, (uint16_t)l4len);
	buf[6] = IPPROTO_TCP;
	buf[IP6_HLIM] = seg->ttl;
	memcpy(buf + IP6_SRC, seg->src->bytes, 16);
	memcpy(buf + IP6_DST, seg->dst->bytes, 16);
	return SEND_IP6_LEN;
}

int
sender_segment(struct sender *s, const struct send_segment *seg)
{
	uint8_t buf[SEND_SEGMENT_MAX], *tcp;
	struct sockaddr_storage ss;
	size_t iplen, tcplen, hlen;
	int fd;

	if (seg->src == NULL || seg->dst == NULL ||
	    seg->src->family != seg->dst->family ||
	    (seg->src->family != ADDR_V4 && seg->src->family != ADDR_V6) ||
	    seg->options_len % 4 != 0 || seg->options_len > 40 ||
	    (seg->options_len > 0 && seg->options == NULL) ||
	    (seg->payload_len > 0 && seg->payload == NULL)) {
		errno = EINVAL;
		return -1;
	}
	fd = send_fd(s, seg->src->family);
	if (fd == -1) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	iplen = seg->src->family == ADDR_V4 ? SEND_IP4_LEN : SEND_IP6_LEN;
	hlen = 20 + seg->options_len;
	if (seg->payload_len > sizeof(buf) - iplen - hlen) {
		errno = EMSGSIZE;
		return -1;
	}
	tcplen = hlen + seg->payload_len;
	send_put_ip(buf, seg, tcplen);
	tcp = buf + iplen;
	memset(tcp, 0, 20);
	wire_put16(tcp + TCP_PORTS, seg->sport);
	wire_put16(tcp + TCP_PORTS + 2, seg->dport);
	wire_put32(tcp + TCP_SEQ, seg->seq);
	wire_put32(tcp + TCP_ACK, seg->ack);
	tcp[TCP_OFF] = (uint8_t)(hlen / 4 << 4);
	tcp[TCP_FLAGS] = seg->flags;
	wire_put16(tcp + TCP_WIN, seg->window);
	if (seg->options_len > 0)
		memcpy(tcp + 20, seg->options, seg->options_len);
	if (seg->payload_len > 0)
		memcpy(tcp + hlen, seg->payload, seg->payload_len);
	wire_put16(tcp + TCP_CSUM, seg->src->family == ADDR_V4 ?
	    wire_tcp_csum4(seg->src->bytes, seg->dst->bytes, tcp, tcplen) :
	    wire_tcp_csum6(seg->src->bytes, seg->dst->bytes, tcp, tcplen));

	/* small enough for a slot: in the ring behind what is there, so it
	 * neither overtakes its SYN nor costs a system call of its own */
	if (iplen + tcplen <= SEND_SLOT) {
		struct send_slot *sl;

		if ((sl = send_slot_get(s, seg->src->family)) == NULL) {
			errno = EPIPE;
			return -1;
		}
		memcpy(sl->pkt, buf, iplen + tcplen);
		sl->len = (uint16_t)(iplen + tcplen);
		sl->family = seg->src->family;
		sl->is_seg = 1;
		send_push(s, seg->src->family);
		return 0;
	}
	/* what the ring holds leaves first: a segment must not overtake its
	 * SYN; the thread is idle meanwhile, the socket ours */
	send_kick(s, true);
	s->last_id = 0;
	socklen_t sl = send_sockaddr(seg->dst, &ss);
	for (;;) {
		if (sendto(fd, buf, iplen + tcplen, 0, (struct sockaddr *)&ss, sl) != -1)
			break;
		if (errno == EINTR)
			continue;
		atomic_store_explicit(&s->lasterr, errno, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
		return -1;
	}
	atomic_fetch_add_explicit(&s->segments, 1, memory_order_relaxed);
	return 0;
}
