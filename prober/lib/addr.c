/*
 * addr.c -- IPv4/IPv6 addresses as bytes: parse, print, compare, prefix match.
 * inet_pton/inet_ntop are pure conversions; nothing here touches the network.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"

size_t
addr_len(const struct addr *a)
{
	switch (a->family) {
	case ADDR_V4:
		return 4;
	case ADDR_V6:
		return 16;
	default:
		return 0;
	}
}

int
addr_parse(const char *s, struct addr *out)
{
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, s, out->bytes) == 1) {
		out->family = ADDR_V4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->bytes) == 1) {
		out->family = ADDR_V6;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -1;
}

const char *
addr_format(const struct addr *a, char *buf, size_t len)
{
	int af = a->family == ADDR_V4 ? AF_INET : AF_INET6;

	if (len == 0)
		return buf;
	if (a->family == 0 || inet_ntop(af, a->bytes, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "-");
	return buf;
}

bool
addr_equal(const struct addr *a, const struct addr *b)
{
	return a->family == b->family &&
	    memcmp(a->bytes, b->bytes, addr_len(a)) == 0;
}

int
addr_compare(const struct addr *a, const struct addr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->bytes, b->bytes, addr_len(a));
}

bool
addr_in_prefix(const struct addr *a, const struct addr *net, unsigned plen)
{
	size_t full = plen / 8;
	unsigned rest = plen % 8;

	if (a->family != net->family || plen > addr_len(a) * 8)
		return false;
	if (memcmp(a->bytes, net->bytes, full) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a->bytes[full] & mask) == (net->bytes[full] & mask);
}

void
addr_mask(struct addr *a, unsigned plen)
{
	size_t len = addr_len(a);

	for (size_t i = 0; i < len; i++) {
		if (plen >= 8 * (i + 1))
			continue;
		if (plen <= 8 * i)
			a->bytes[i] = 0;
		else
			a->bytes[i] &= (uint8_t)(0xff << (8 - (plen - 8 * i)));
	}
}

int
addr_parse_prefix(const char *s, struct addr *net, unsigned *plen, const char **why)
{
	char buf[ADDR_STRLEN];
	const char *slash = strchr(s, '/');
	size_t alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	unsigned long len = 0;
	struct addr masked;

	*why = "not an IPv4 or IPv6 address";
	if (alen >= sizeof(buf))
		return -1;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (addr_parse(buf, net) == -1)
		return -1;
	if (slash == NULL) {
		*plen = (unsigned)addr_len(net) * 8;
		return 0;
	}
	/* digits only: strtoul would take " 8", "+8" and "0x8" */
	if (slash[1] == '\0' || strspn(slash + 1, "0123456789") != strlen(slash + 1) ||
	    strlen(slash + 1) > 3) {
		*why = "prefix length is not a number";
		return -1;
	}
	for (const char *p = slash + 1; *p != '\0'; p++)
		len = len * 10 + (unsigned long)(*p - '0');
	if (len > addr_len(net) * 8) {
		*why = net->family == ADDR_V4 ?
		    "prefix length too long for IPv4 (at most 32)" :
		    "prefix length too long for IPv6 (at most 128)";
		return -1;
	}
	masked = *net;
	addr_mask(&masked, (unsigned)len);
	if (!addr_equal(&masked, net)) {
		*why = "host bits set after the prefix length";
		return -1;
	}
	*plen = (unsigned)len;
	return 0;
}
