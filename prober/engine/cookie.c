/*
 * cookie.c -- the keyed-hash ISN of each probe and the checks of replies
 * (SYN-ACK, RST, ICMP quote) against it.  Pure: the key comes from the
 * caller.
 */
#include <string.h>

#include "cookie.h"

void
cookie_key_init(struct cookie_key *key, const uint8_t bytes[SIPHASH_KEY_LEN])
{
	memcpy(key->bytes, bytes, SIPHASH_KEY_LEN);
}

/* SipHash input: family, src, dst (4 or 16 bytes each), sport, dport in
 * network order.  Family first, so that a v4 and a v6 tuple never hash
 * the same bytes. */
static uint32_t
cookie_hash(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport)
{
	uint8_t msg[1 + 16 + 16 + 2 + 2];
	size_t alen = addr_len(src), o = 0;

	msg[o++] = src->family;
	memcpy(msg + o, src->bytes, alen);
	o += alen;
	memcpy(msg + o, dst->bytes, alen);
	o += alen;
	msg[o++] = (uint8_t)(sport >> 8);
	msg[o++] = (uint8_t)sport;
	msg[o++] = (uint8_t)(dport >> 8);
	msg[o++] = (uint8_t)dport;
	return (uint32_t)siphash24(key->bytes, msg, o);
}

uint32_t
cookie_isn(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, unsigned tag)
{
	return (cookie_hash(key, src, dst, sport, dport) & ~COOKIE_TAG_MASK) |
	    (tag & COOKIE_TAG_MASK);
}

/* True when seq is an ISN of the probe, its tag in *tag. */
static bool
cookie_match(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t seq, int *tag)
{
	if (src->family != dst->family || addr_len(src) == 0)
		return false;
	if ((seq & ~COOKIE_TAG_MASK) !=
	    (cookie_hash(key, src, dst, sport, dport) & ~COOKIE_TAG_MASK))
		return false;
	if (tag != NULL)
		*tag = (int)(seq & COOKIE_TAG_MASK);
	return true;
}

bool
cookie_check_synack(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t ack, int *tag)
{
	return cookie_match(key, src, dst, sport, dport, ack - 1, tag);
}

bool
cookie_check_rst(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t ack,
    bool ack_flag, int *tag)
{
	if (!ack_flag)
		return false;
	return cookie_match(key, src, dst, sport, dport, ack - 1, tag) ||
	    cookie_match(key, src, dst, sport, dport, ack, tag);
}

bool
cookie_check_quote(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t seq, int *tag)
{
	return cookie_match(key, src, dst, sport, dport, seq, tag);
}
