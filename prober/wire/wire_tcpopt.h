/*
 * wire_tcpopt.h -- TCP option bytes -> struct tcpopts: the decoded values
 * of the options scaleprobe reasons about, and the ordered list of every
 * option as it was on the wire, known or not, well formed or not, so a
 * differ can set the options sent beside the options quoted.
 */
#ifndef WIRE_TCPOPT_H
#define WIRE_TCPOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* Option kinds (IANA "TCP Option Kind Numbers") decoded here. */
#define WIRE_TCPOPT_EOL		0
#define WIRE_TCPOPT_NOP		1
#define WIRE_TCPOPT_MSS		2	/* len 4 */
#define WIRE_TCPOPT_WSCALE	3	/* len 3 */
#define WIRE_TCPOPT_SACK_PERM	4	/* len 2 */
#define WIRE_TCPOPT_SACK	5	/* len 2 + 8n, n = 1..4 */
#define WIRE_TCPOPT_TS		8	/* len 10 */

#define WIRE_TCPOPT_AREA_MAX	40	/* data offset 15 */
#define WIRE_TCPOPT_MAX		40	/* entries: at most one per byte */
#define WIRE_TCPOPT_SACK_MAX	4	/* blocks that fit in 40 bytes */

/* Flags of one entry. */
#define WIRE_TCPOPT_F_BADLEN	0x01	/* known kind, wrong length: value not
					   decoded, walk went on by its length */
#define WIRE_TCPOPT_F_BROKEN	0x02	/* length < 2, or missing, or past the
					   option area: the walk stopped here */
#define WIRE_TCPOPT_F_CUT	0x04	/* runs past the bytes present (inside
					   the area): the walk stopped here */
#define WIRE_TCPOPT_F_DUP	0x08	/* known kind seen before; the first
					   one's value is the decoded one */

/* One option as it was on the wire. */
struct wire_tcpopt {
	uint8_t		kind;
	uint8_t		len;		/* its length byte; 1 for EOL and NOP,
					   0 if the bytes end before it */
	uint8_t		off;		/* of the kind byte, in the option area */
	uint8_t		flags;		/* WIRE_TCPOPT_F_* */
};

/*
 * The options of one TCP header.
 *
 * Decoded values are valid when their has_ flag is set, and come from the
 * first well-formed option of the kind.  wscale is the shift as sent,
 * 0..255: RFC 7323 has the receiver clamp values above 14, and sending
 * them is one of scaleprobe's probes, so nothing is clamped here.
 *
 * opt[0..n-1] is every option in wire order, up to and including EOL or
 * the option that stopped the walk.  The value bytes of unknown kinds are
 * not copied: they are at area + off + 2, len - 2 bytes, in the caller's
 * buffer.  Nothing after EOL is an option (RFC 9293: padding); if a byte
 * there is non-zero, data_after_eol says so.
 */
struct tcpopts {
	bool		has_mss;
	bool		has_wscale;
	bool		sack_perm;
	bool		has_ts;
	uint16_t	mss;
	uint8_t		wscale;
	uint8_t		n_sack;		/* SACK blocks decoded */
	uint32_t	ts_val;
	uint32_t	ts_ecr;
	struct {
		uint32_t	left;
		uint32_t	right;
	}		sack[WIRE_TCPOPT_SACK_MAX];

	uint8_t		n;		/* entries in opt[] */
	uint8_t		area_len;	/* option area, as the data offset says */
	uint8_t		have;		/* bytes of it present */
	uint8_t		n_unknown;	/* entries of kinds not decoded here */
	uint8_t		n_bad;		/* entries flagged BADLEN or BROKEN */
	bool		has_eol;
	uint8_t		eol_off;	/* valid when has_eol */
	bool		data_after_eol;	/* a non-zero byte after EOL */
	struct wire_tcpopt opt[WIRE_TCPOPT_MAX];
};

/*
 * Parse an option area: area_len is its length per the data offset
 * (hdr_len - 20), have how many of its bytes are at opts (have <= area_len;
 * pass the same value twice for a complete header).  Fills *o as far as the
 * bytes allow on every result.
 *
 * WIRE_OK          every option well formed.
 * WIRE_TRUNCATED   an option runs past have but not past area_len.
 * WIRE_MALFORMED   an entry BADLEN or BROKEN, non-zero bytes after EOL, or
 *                  have > area_len or area_len > 40.
 */
enum wire_result wire_tcpopt_parse(const uint8_t *opts, size_t have,
		    size_t area_len, struct tcpopts *o);

/*
 * Write the kinds of o->opt[] in order into kinds (at most cap), with each
 * run of NOPs collapsed into one NOP, and return how many were written.
 * Two layouts that differ only in NOP padding give equal lists: what the
 * differ compares, since strippers NOP options out (xt_TCPOPTSTRIP) and
 * stacks pad differently.
 */
size_t		wire_tcpopt_kinds(const struct tcpopts *o, uint8_t *kinds,
		    size_t cap);

#endif /* WIRE_TCPOPT_H */
