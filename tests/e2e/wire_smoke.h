/*
 * wire_smoke.h -- what the parts of the wire_smoke test program share: the
 * probes it sends, the claims it prints, its event loop helpers.
 */
#ifndef WIRE_SMOKE_H
#define WIRE_SMOKE_H

#include <stdint.h>

#include "addr.h"
#include "send.h"

struct capture;
struct event_base;

#define MAX_TARGETS	4
#define MAX_CAPS	4
#define NVARIANTS	4
#define MAX_PROBES	(MAX_TARGETS * (NVARIANTS + 1))

/* control, then the default scales (--scales 0,7,14) */
static const int variant_scale[NVARIANTS] = { SEND_VARIANT_CONTROL, 0, 7, 14 };

struct probe {
	int		target;
	int		variant;
	int		unguarded;	/* sent from the -u port */
	struct addr	src, dst;
	uint16_t	sport;
	uint32_t	isn;
	uint32_t	tsval;
	uint32_t	flow;
	int		got[MAX_CAPS];	/* SYN-ACK seen on capture i */
	int		bad_ack;	/* a SYN-ACK to our port with the wrong ack */
	uint32_t	srv_isn;
	int		has_ws;
	int		ws;
};

struct capctx {
	struct smoke	*sm;
	int		 idx;
};

struct smoke {
	struct event_base *base;
	struct probe	 probes[MAX_PROBES];
	int		 nprobes;
	int		 ncaps;
	struct capture	*caps[MAX_CAPS];
	struct capctx	 capctx[MAX_CAPS];
	int		 signalled;
	int		 pass, fail;
};

/* Prints "PASS ..." or "FAIL ..." and counts it. */
void	claim(struct smoke *sm, int ok, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
double	now_s(void);
/* Runs sm->base for ms, or (until_answered) until every probe has its
 * SYN-ACK on every capture. */
void	run_loop(struct smoke *sm, int ms, int until_answered);

/* wire_smoke_modes.c */
void	check_render(struct smoke *sm, const struct sender *s,
	    const struct addr *src4, const struct addr *src6);
int	capture_only(struct smoke *sm, const char **caps, const char *filter,
	    int want, int ms);
int	bench(const struct addr *src, const struct addr *dst, int secs, int batch);

#endif
