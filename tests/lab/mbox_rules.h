/*
 * mbox_rules.h -- the middlebox emulator's rules file, as a struct.
 *
 * The lab's emulator (mbox) rewrites what a badly behaved router rewrites:
 * window scale, MSS and timestamps in passing SYNs, and the quotes of its own
 * ICMP time-exceeded messages.  Which box does what to which destination is
 * a rules file, one rule per line:
 *
 *	ADDR ACTION [ARG]	# comment
 *
 * ADDR is an IPv4 or IPv6 address, matched exactly.  Several lines may name
 * one ADDR; they merge into one struct mbox_rule, which holds at most one
 * SYN action and at most one quote action.  The grammar is in MBOX.md.
 *
 * Parsing is pure: the caller reads the file and hands its bytes in.
 */
#ifndef MBOX_RULES_H
#define MBOX_RULES_H

#include <stddef.h>
#include <stdint.h>

/* What to do to a SYN (SYN set, ACK clear) whose IP destination matches. */
enum mbox_syn_action {
	MBOX_SYN_NONE = 0,	/* no SYN rule for this address */
	MBOX_SYN_PASS,		/* accept unchanged */
	MBOX_SYN_WS_SET,	/* shift := arg, option kept in place */
	MBOX_SYN_WS_CAP,	/* shift := min(shift, arg) */
	MBOX_SYN_WS_NOP,	/* the 3 WS bytes become NOPs */
	MBOX_SYN_WS_STRIP,	/* WS cut out, headers shortened */
	MBOX_SYN_DROP_WS,	/* drop SYNs carrying WS */
	MBOX_SYN_MSS_CLAMP,	/* MSS := min(MSS, arg) */
	MBOX_SYN_TS_STRIP	/* the 10 timestamp bytes become NOPs */
};

/* What to do to an ICMP(v6) time-exceeded whose quoted destination matches. */
enum mbox_quote_action {
	MBOX_QUOTE_NONE = 0,	/* no quote rule for this address */
	MBOX_QUOTE_8BYTE,	/* quoted IP header + 8 bytes (RFC 792) */
	MBOX_QUOTE_SILENT,	/* drop the message */
	MBOX_QUOTE_FULL		/* accept unchanged */
};

struct mbox_addr {
	int		family;		/* 4 or 6 */
	uint8_t		bytes[16];	/* network order; 4 used for IPv4 */
};

struct mbox_rule {
	struct mbox_addr	addr;
	enum mbox_syn_action	syn;
	unsigned int		syn_arg;	/* N of ws-set, ws-cap, mss-clamp */
	int			syn_line;	/* line that set syn, for messages */
	enum mbox_quote_action	quote;
	int			quote_line;
};

/*
 * A parsed rules file.  errors holds one "name:line: message\n" per error,
 * in file order (NUL-terminated, NULL when there were none).
 */
struct mbox_rules {
	struct mbox_rule	*rule;
	size_t			 nrules;
	char			*errors;
	size_t			 errors_len;
	int			 nerrors;
};

/*
 * Parses len bytes of text (need not be NUL-terminated; a NUL byte is an
 * error) named name in messages.  Reports every error in one pass.  Returns
 * the number of errors, or -1 when memory ran out; rs is usable (and must be
 * freed with mbox_rules_free) either way.  A file with errors yields no rules.
 */
int	mbox_rules_parse(struct mbox_rules *rs, const char *name,
	    const char *text, size_t len);
void	mbox_rules_free(struct mbox_rules *rs);

/* The rule for an address (family 4 or 6, bytes in network order), or NULL. */
const struct mbox_rule *mbox_rules_find(const struct mbox_rules *rs,
	    int family, const uint8_t *addr);

/* Action names as the rules file spells them; "" for NONE. */
const char	*mbox_rules_syn_name(enum mbox_syn_action a);
const char	*mbox_rules_quote_name(enum mbox_quote_action a);

/*
 * Writes the rule back in normalized form (canonical address text, one line
 * per action, no comments) into buf; returns the length it needed, as
 * snprintf does.
 */
int	mbox_rules_format(const struct mbox_rule *r, char *buf, size_t size);

#endif
