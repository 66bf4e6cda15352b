/*
 * srcrange.c -- parsing a range of source addresses and picking one per
 * path (srcrange.h).
 */
#include <stdio.h>
#include <string.h>

#include "srcrange.h"

/* a + i in network order over the family's bytes; false on a carry out */
static bool
add(struct addr *a, uint64_t i)
{
	size_t len = addr_len(a);

	for (size_t k = len; k-- > 0 && i != 0;) {
		uint64_t v = a->bytes[k] + (i & 0xff);

		a->bytes[k] = (uint8_t)v;
		i = (i >> 8) + (v >> 8);
	}
	return i == 0;
}

/* b - a + 1 when a <= b and it is at most SRCRANGE_MAX; 0 otherwise */
static uint32_t
span(const struct addr *a, const struct addr *b)
{
	size_t len = addr_len(a);
	uint8_t d[16];
	int borrow = 0;
	uint64_t v = 0;

	if (addr_compare(a, b) > 0)
		return 0;
	for (size_t k = len; k-- > 0;) {
		int x = b->bytes[k] - a->bytes[k] - borrow;

		borrow = x < 0;
		d[k] = (uint8_t)(x + (borrow ? 256 : 0));
	}
	for (size_t k = 0; k < len; k++) {
		if (k + 2 < len && d[k] != 0)
			return 0;
		v = (v << 8) | d[k];
	}
	return v + 1 > SRCRANGE_MAX ? 0 : (uint32_t)(v + 1);
}

/* NULL when a is unicast; else why not */
static const char *
not_unicast(const struct addr *a)
{
	static const uint8_t zero[16];
	const uint8_t *b = a->bytes;

	if (a->family == ADDR_V4) {
		if (b[0] == 0)
			return "in 0.0.0.0/8";
		if (b[0] == 127)
			return "loopback";
		if (b[0] >= 224 && b[0] <= 239)
			return "multicast";
		if (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255)
			return "the broadcast address";
		return NULL;
	}
	if (memcmp(b, zero, 16) == 0)
		return "unspecified";
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return "loopback";
	if (b[0] == 0xff)
		return "multicast";
	return NULL;
}

int
srcrange_parse(const char *s, struct srcrange *out, char *why, size_t whylen)
{
	char lo[ADDR_STRLEN + 8], t[ADDR_STRLEN];
	const char *dash = strchr(s, '-'), *pwhy;
	struct addr a, b;
	unsigned plen;

	memset(out, 0, sizeof(*out));
	if (dash != NULL) {
		if ((size_t)(dash - s) >= sizeof(lo)) {
			snprintf(why, whylen, "'%s' is not A-B or a CIDR", s);
			return -1;
		}
		memcpy(lo, s, (size_t)(dash - s));
		lo[dash - s] = '\0';
		if (addr_parse(lo, &a) != 0 || addr_parse(dash + 1, &b) != 0) {
			snprintf(why, whylen, "'%s' is not A-B of two addresses", s);
			return -1;
		}
		if (a.family != b.family) {
			snprintf(why, whylen, "'%s' mixes IPv4 and IPv6", s);
			return -1;
		}
		if (addr_compare(&a, &b) > 0) {
			snprintf(why, whylen, "'%s' ends before it starts", s);
			return -1;
		}
	} else {
		if (addr_parse_prefix(s, &a, &plen, &pwhy) != 0) {
			snprintf(why, whylen, "'%s' is not A-B or a CIDR: %s", s, pwhy);
			return -1;
		}
		b = a;
		if (addr_len(&a) * 8 - plen > 12 ||
		    !add(&b, (1ull << (addr_len(&a) * 8 - plen)) - 1)) {
			snprintf(why, whylen, "'%s' holds more than %d addresses", s,
			    SRCRANGE_MAX);
			return -1;
		}
	}
	if ((out->n = span(&a, &b)) == 0) {
		snprintf(why, whylen, "'%s' holds more than %d addresses", s, SRCRANGE_MAX);
		return -1;
	}
	out->first = a;
	for (uint32_t i = 0; i < out->n; i++) {
		struct addr x = srcrange_addr(out, i);
		const char *no = not_unicast(&x);

		if (no != NULL) {
			snprintf(why, whylen, "%s is %s, not a unicast source",
			    addr_format(&x, t, sizeof(t)), no);
			memset(out, 0, sizeof(*out));
			return -1;
		}
	}
	return 0;
}

struct addr
srcrange_addr(const struct srcrange *r, uint32_t i)
{
	struct addr a = r->first;

	(void)add(&a, i);
	return a;
}

uint32_t
srcrange_pick(const struct srcrange *r, const uint8_t key[SIPHASH_KEY_LEN],
    const struct addr *dst, uint16_t port)
{
	uint8_t buf[19];

	if (r->n <= 1)
		return 0;
	buf[0] = dst->family;
	memcpy(buf + 1, dst->bytes, 16);
	buf[17] = (uint8_t)(port >> 8);
	buf[18] = (uint8_t)port;
	/* the high bits, multiplied down: no modulo bias worth a word */
	return (uint32_t)(((siphash24(key, buf, sizeof(buf)) >> 32) * r->n) >> 32);
}

const char *
srcrange_format(const struct srcrange *r, char *buf, size_t len)
{
	char a[ADDR_STRLEN], b[ADDR_STRLEN];
	struct addr last = srcrange_addr(r, r->n - 1);

	addr_format(&r->first, a, sizeof(a));
	if (r->n == 1)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s-%s", a, addr_format(&last, b, sizeof(b)));
	return buf;
}
