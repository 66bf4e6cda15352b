/*
 * send_int.h -- what send.c (the templates, the sockets, the queues, the
 * SYNs) shares with send_segment.c (every other segment) and nothing else
 * sees: the layout of the packets built, the sender's state, and the
 * queue both put packets on.  Its includer defines _GNU_SOURCE first
 * (struct mmsghdr).
 */
#ifndef SCALEPROBE_SEND_INT_H
#define SCALEPROBE_SEND_INT_H

#include <sys/socket.h>

#include <stdint.h>

#include "send.h"

#define SEND_OPT_LEN		20	/* MSS 4, SACK-perm 2, TS 10, NOP, WS 3 */
#define SEND_TCP_LEN		(20 + SEND_OPT_LEN)
#define SEND_IP4_LEN		20
#define SEND_IP6_LEN		40
#define SEND_SYN4_LEN		(SEND_IP4_LEN + SEND_TCP_LEN)	/* 60 */
#define SEND_SYN6_LEN		(SEND_IP6_LEN + SEND_TCP_LEN)	/* 80 */
#define SEND_SLOT		SEND_SYN6_LEN
#define SEND_SEGMENT_MAX	1500	/* whole packet of sender_segment */
#define SEND_DEFAULT_MSS	1460
#define SEND_DEFAULT_WINDOW	64240
#define SEND_DEFAULT_BATCH	64
#define SEND_MAX_BATCH		1024
#define SEND_TEMPLATE_TTL	64	/* replaced per probe */
#define SEND_SNDBUF		(4 * 1024 * 1024)

/* Offsets in the TCP header and its option area (send.h's layout). */
#define TCP_PORTS		0
#define TCP_SEQ			4
#define TCP_ACK			8
#define TCP_OFF			12
#define TCP_FLAGS		13
#define TCP_WIN			14
#define TCP_CSUM		16
#define TCP_TSVAL		28	/* 20 + MSS 4 + SACK-perm 2 + kind, len */

#define IP4_TOTLEN		2
#define IP4_TTL			8
#define IP4_CSUM		10
#define IP4_SRC			12
#define IP4_DST			16
#define IP6_PLEN		4
#define IP6_HLIM		7
#define IP6_SRC			8
#define IP6_DST			24

/* SYNs queued for one socket, flushed with one sendmmsg(). */
struct send_queue {
	int			 fd;		/* -1: family not opened */
	int			 n;		/* queued */
	uint8_t			*pkts;		/* batch slots of SEND_SLOT bytes */
	uint8_t			*is_seg;	/* per slot: a segment, not a SYN */
	struct mmsghdr		*msgs;
	struct iovec		*iov;
	struct sockaddr_storage	*to;
};

struct sender {
	struct send_config	 cfg;
	uint8_t			 tmpl4[SEND_MAX_VARIANTS][SEND_SYN4_LEN];
	uint8_t			 tmpl6[SEND_MAX_VARIANTS][SEND_SYN6_LEN];
	struct send_queue	 q4, q6;
	struct send_stats	 st;
};

/* The sockaddr of dst for sendto / sendmmsg; its length. */
socklen_t send_sockaddr(const struct addr *dst, struct sockaddr_storage *ss);
/* Sends what q holds; packets sent, *lasterr the last errno (0: none). */
int send_queue_flush(struct sender *s, struct send_queue *q, int *lasterr);

#endif
