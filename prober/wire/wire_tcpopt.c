/*
 * wire_tcpopt.c -- TCP option area -> struct tcpopts.  Every option is
 * listed in wire order with its offset; MSS, window scale, SACK-permitted,
 * SACK blocks and timestamps are decoded; lengths that cannot be right are
 * flagged, never trusted.
 */
#include <string.h>

#include "wire_tcpopt.h"

/* The one length a fixed-size known kind may have; 0 if none is fixed. */
static unsigned
wire_tcpopt_fixed_len(uint8_t kind)
{
	switch (kind) {
	case WIRE_TCPOPT_MSS:		return 4;
	case WIRE_TCPOPT_WSCALE:	return 3;
	case WIRE_TCPOPT_SACK_PERM:	return 2;
	case WIRE_TCPOPT_TS:		return 10;
	default:			return 0;
	}
}

/* Decode one complete option whose bytes are p[0..len-1]. */
static void
wire_tcpopt_decode(struct tcpopts *o, struct wire_tcpopt *e, const uint8_t *p,
    unsigned len)
{
	unsigned	fixed = wire_tcpopt_fixed_len(e->kind);
	bool		*seen;
	unsigned	i;

	switch (e->kind) {
	case WIRE_TCPOPT_MSS:		seen = &o->has_mss; break;
	case WIRE_TCPOPT_WSCALE:	seen = &o->has_wscale; break;
	case WIRE_TCPOPT_SACK_PERM:	seen = &o->sack_perm; break;
	case WIRE_TCPOPT_TS:		seen = &o->has_ts; break;
	case WIRE_TCPOPT_SACK:
		if (len < 2 + 8 || (len - 2) % 8 != 0) {
			e->flags |= WIRE_TCPOPT_F_BADLEN;
			return;
		}
		if (o->n_sack != 0) {
			e->flags |= WIRE_TCPOPT_F_DUP;
			return;
		}
		/* len <= 40 here, so at most 4 blocks */
		for (i = 0; i < (len - 2) / 8; i++) {
			o->sack[i].left = wire_get32(p + 2 + 8 * i);
			o->sack[i].right = wire_get32(p + 6 + 8 * i);
		}
		o->n_sack = (uint8_t)i;
		return;
	default:
		o->n_unknown++;
		return;
	}
	if (len != fixed) {
		e->flags |= WIRE_TCPOPT_F_BADLEN;
		return;
	}
	if (*seen) {
		e->flags |= WIRE_TCPOPT_F_DUP;
		return;
	}
	*seen = true;
	switch (e->kind) {
	case WIRE_TCPOPT_MSS:
		o->mss = wire_get16(p + 2);
		break;
	case WIRE_TCPOPT_WSCALE:
		o->wscale = p[2];
		break;
	case WIRE_TCPOPT_TS:
		o->ts_val = wire_get32(p + 2);
		o->ts_ecr = wire_get32(p + 6);
		break;
	}
}

enum wire_result
wire_tcpopt_parse(const uint8_t *opts, size_t have, size_t area_len,
    struct tcpopts *o)
{
	enum wire_result	 r = WIRE_OK;
	struct wire_tcpopt	*e;
	size_t			 off, i;
	unsigned		 olen;

	memset(o, 0, sizeof(*o));
	if (area_len > WIRE_TCPOPT_AREA_MAX || have > area_len)
		return WIRE_MALFORMED;
	o->area_len = (uint8_t)area_len;
	o->have = (uint8_t)have;

	/* each entry takes at least one byte, so n stays below 40 */
	for (off = 0; off < area_len; off += olen) {
		if (off >= have)
			return WIRE_TRUNCATED;
		e = &o->opt[o->n++];
		e->kind = opts[off];
		e->off = (uint8_t)off;
		if (e->kind == WIRE_TCPOPT_EOL || e->kind == WIRE_TCPOPT_NOP) {
			e->len = olen = 1;
			if (e->kind == WIRE_TCPOPT_NOP)
				continue;
			o->has_eol = true;
			o->eol_off = (uint8_t)off;
			for (i = off + 1; i < have; i++)
				if (opts[i] != 0)
					o->data_after_eol = true;
			if (o->data_after_eol)
				r = WIRE_MALFORMED;
			/* bytes after EOL that are missing are padding too */
			return r == WIRE_OK && have < area_len ?
			    WIRE_TRUNCATED : r;
		}
		if (off + 1 >= area_len) {
			e->flags |= WIRE_TCPOPT_F_BROKEN;
			break;
		}
		if (off + 1 >= have) {
			e->flags |= WIRE_TCPOPT_F_CUT;
			return WIRE_TRUNCATED;
		}
		e->len = opts[off + 1];
		olen = e->len;
		if (olen < 2 || off + olen > area_len) {
			e->flags |= WIRE_TCPOPT_F_BROKEN;
			break;
		}
		if (off + olen > have) {
			e->flags |= WIRE_TCPOPT_F_CUT;
			return WIRE_TRUNCATED;
		}
		wire_tcpopt_decode(o, e, opts + off, olen);
		if (e->flags & WIRE_TCPOPT_F_BADLEN) {
			o->n_bad++;
			r = WIRE_MALFORMED;
		}
	}
	if (o->n != 0 && o->opt[o->n - 1].flags & WIRE_TCPOPT_F_BROKEN) {
		o->n_bad++;
		r = WIRE_MALFORMED;
	}
	return r;
}

size_t
wire_tcpopt_kinds(const struct tcpopts *o, uint8_t *kinds, size_t cap)
{
	size_t	i, k = 0;

	for (i = 0; i < o->n && k < cap; i++) {
		if (o->opt[i].kind == WIRE_TCPOPT_NOP && k > 0 &&
		    kinds[k - 1] == WIRE_TCPOPT_NOP)
			continue;
		kinds[k++] = o->opt[i].kind;
	}
	return k;
}
