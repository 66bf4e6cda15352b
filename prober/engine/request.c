/*
 * request.c -- the window test's request bytes (request.h): an HTTP GET and
 * a TLS ClientHello.  Pure: strings and a seed in, bytes out.
 */
#include <stdbool.h>
#include <string.h>

#include "addr.h"
#include "request.h"
#include "siphash.h"
#include "version.h"

#define REQUEST_UA "scaleprobe/" SCALEPROBE_VERSION " (TCP window scale path measurement"

/* A bounded writer: the first write that does not fit spoils the whole
 * message, so a builder checks once at the end instead of at every call. */
struct out {
	uint8_t *p;
	size_t cap, len;
	bool full;
};

static void
out_bytes(struct out *o, const void *b, size_t n)
{
	if (o->full || n > o->cap - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, b, n);
	o->len += n;
}

static void
out_str(struct out *o, const char *s)
{
	out_bytes(o, s, strlen(s));
}

static void
out_u8(struct out *o, unsigned v)
{
	uint8_t b = (uint8_t)v;

	out_bytes(o, &b, 1);
}

static void
out_u16(struct out *o, unsigned v)
{
	out_u8(o, v >> 8);
	out_u8(o, v);
}

/* Reserves a big-endian length field of n bytes; out_len_end fills it
 * with the number of bytes written after it. */
static size_t
out_len_begin(struct out *o, size_t n)
{
	size_t at = o->len;
	static const uint8_t zero[3];

	out_bytes(o, zero, n);
	return at;
}

static void
out_len_end(struct out *o, size_t at, size_t n)
{
	size_t v;

	if (o->full)
		return;
	v = o->len - at - n;
	for (size_t i = 0; i < n; i++)
		o->p[at + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Visible ASCII, no space: what may stand in a header value we build. */
static bool
request_visible(const char *s, size_t max, const char *forbid)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		unsigned char c = (unsigned char)s[n];

		if (n >= max || c <= 0x20 || c >= 0x7f || strchr(forbid, c) != NULL)
			return false;
	}
	return n > 0;
}

size_t
request_http(uint8_t *buf, size_t cap, const char *host, const char *contact)
{
	struct out o = { buf, cap, 0, false };
	bool v6;

	if (host == NULL || !request_visible(host, REQUEST_NAME_MAX + 2, ""))
		return 0;
	if (contact != NULL && contact[0] == '\0')
		contact = NULL;
	if (contact != NULL && !request_visible(contact, PROBE_CONTACT_MAX, "()\\"))
		return 0;
	/* an IPv6 literal (the only form with a colon) needs its brackets */
	v6 = strchr(host, ':') != NULL && host[0] != '[';

	out_str(&o, "GET / HTTP/1.1\r\nHost: ");
	if (v6)
		out_str(&o, "[");
	out_str(&o, host);
	if (v6)
		out_str(&o, "]");
	out_str(&o, "\r\nUser-Agent: " REQUEST_UA);
	if (contact != NULL) {
		out_str(&o, "; +");
		out_str(&o, contact);
	}
	out_str(&o, ")\r\n");
	if (contact != NULL && strncmp(contact, "mailto:", 7) == 0 && contact[7] != '\0') {
		out_str(&o, "From: ");
		out_str(&o, contact + 7);
		out_str(&o, "\r\n");
	}
	out_str(&o, "Accept: */*\r\nConnection: close\r\n\r\n");
	return o.full ? 0 : o.len;
}

/* --- TLS ---------------------------------------------------------------- */

/* Bytes derived from the seed: SipHash of (label, counter) under a key
 * made of the seed, so random, session id and key share are unrelated. */
static void
request_seeded(uint64_t seed, uint8_t label, uint8_t *dst, size_t n)
{
	uint8_t key[SIPHASH_KEY_LEN];
	uint8_t msg[2];

	for (int i = 0; i < 8; i++) {
		key[i] = (uint8_t)(seed >> (8 * i));
		key[8 + i] = (uint8_t)("spTLSkey"[i]);
	}
	msg[0] = label;
	for (size_t off = 0, ctr = 0; off < n; off += 8, ctr++) {
		uint64_t h;

		msg[1] = (uint8_t)ctr;
		h = siphash24(key, msg, sizeof(msg));
		for (size_t i = 0; i < 8 && off + i < n; i++)
			dst[off + i] = (uint8_t)(h >> (8 * i));
	}
}

static const uint16_t tls_suites[] = {
	0x1301, 0x1303, 0x1302,		/* TLS 1.3: AES-128-GCM, ChaCha20, AES-256-GCM */
	0xc02b, 0xc02f, 0xcca9, 0xcca8,	/* ECDHE-{ECDSA,RSA} AES-128-GCM, ChaCha20 */
	0xc02c, 0xc030,			/* ECDHE-{ECDSA,RSA} AES-256-GCM */
	0xc00a, 0xc009, 0xc013, 0xc014,	/* ECDHE CBC, for old servers */
	0x009c, 0x009d, 0x002f, 0x0035,	/* RSA key exchange, for older ones */
};

static const uint16_t tls_groups[] = { 0x001d, 0x0017, 0x0018, 0x0019 };

static const uint16_t tls_sigalgs[] = {
	0x0403, 0x0503, 0x0603,		/* ECDSA P-256/384/521 */
	0x0804, 0x0805, 0x0806,		/* RSA-PSS (rsae) */
	0x0401, 0x0501, 0x0601,		/* RSA PKCS#1 v1.5 */
	0x0203, 0x0201,			/* SHA-1, for old certificates */
};

/* SNI carries DNS names only: letters, digits, '-', '_' and dots. */
static size_t
request_sni_name(const char *sni, char *name, size_t cap)
{
	struct addr a;
	size_t n;

	if (sni == NULL || sni[0] == '\0' || addr_parse(sni, &a) == 0)
		return 0;
	n = strlen(sni);
	if (n > 0 && sni[n - 1] == '.')
		n--;
	if (n == 0 || n > REQUEST_NAME_MAX || n >= cap)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = sni[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
			return 0;
	}
	memcpy(name, sni, n);
	name[n] = '\0';
	return n;
}

static void
tls_ext_begin(struct out *o, unsigned type, size_t *at)
{
	out_u16(o, type);
	*at = out_len_begin(o, 2);
}

#define TLS_X25519_LEN 32		/* an x25519 public key */

/* The ClientHello's extensions but the padding: the server name when
 * there is one, then what a browser offers (groups, ALPN, signature
 * algorithms, an x25519 key share, TLS 1.3 and 1.2). */
static void
tls_extensions(struct out *o, const char *name, size_t namelen,
    const uint8_t share[TLS_X25519_LEN])
{
	size_t e, lst;

	if (namelen > 0) {
		tls_ext_begin(o, 0x0000, &e);	/* server_name */
		lst = out_len_begin(o, 2);
		out_u8(o, 0);			/* host_name */
		out_u16(o, (unsigned)namelen);
		out_bytes(o, name, namelen);
		out_len_end(o, lst, 2);
		out_len_end(o, e, 2);
	}
	tls_ext_begin(o, 0x0017, &e);		/* extended_master_secret */
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0xff01, &e);		/* renegotiation_info */
	out_u8(o, 0);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x000a, &e);		/* supported_groups */
	lst = out_len_begin(o, 2);
	for (size_t i = 0; i < sizeof(tls_groups) / sizeof(tls_groups[0]); i++)
		out_u16(o, tls_groups[i]);
	out_len_end(o, lst, 2);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x000b, &e);		/* ec_point_formats: uncompressed */
	out_u8(o, 1);
	out_u8(o, 0);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x0023, &e);		/* session_ticket, empty */
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x0010, &e);		/* ALPN */
	lst = out_len_begin(o, 2);
	out_u8(o, 8);
	out_str(o, "http/1.1");
	out_len_end(o, lst, 2);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x0005, &e);		/* status_request: OCSP */
	out_u8(o, 1);
	out_u16(o, 0);
	out_u16(o, 0);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x000d, &e);		/* signature_algorithms */
	lst = out_len_begin(o, 2);
	for (size_t i = 0; i < sizeof(tls_sigalgs) / sizeof(tls_sigalgs[0]); i++)
		out_u16(o, tls_sigalgs[i]);
	out_len_end(o, lst, 2);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x0033, &e);		/* key_share: x25519 */
	lst = out_len_begin(o, 2);
	out_u16(o, 0x001d);
	out_u16(o, TLS_X25519_LEN);
	out_bytes(o, share, TLS_X25519_LEN);
	out_len_end(o, lst, 2);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x002d, &e);		/* psk_key_exchange_modes: psk_dhe_ke */
	out_u8(o, 1);
	out_u8(o, 1);
	out_len_end(o, e, 2);
	tls_ext_begin(o, 0x002b, &e);		/* supported_versions: 1.3, 1.2 */
	out_u8(o, 4);
	out_u16(o, 0x0304);
	out_u16(o, 0x0303);
	out_len_end(o, e, 2);
}

size_t
request_tls(uint8_t *buf, size_t cap, const char *sni, uint64_t seed)
{
	struct out o = { buf, cap, 0, false };
	char name[REQUEST_NAME_MAX + 1];
	uint8_t rnd[32], sid[32], share[TLS_X25519_LEN];
	size_t rec, hs, lst, exts, l2, namelen, hslen;

	namelen = request_sni_name(sni, name, sizeof(name));
	if (sni != NULL && sni[0] != '\0' && namelen == 0) {
		struct addr a;

		/* an address literal simply goes without SNI; junk is refused */
		if (addr_parse(sni, &a) != 0)
			return 0;
	}
	request_seeded(seed, 'R', rnd, sizeof(rnd));
	request_seeded(seed, 'S', sid, sizeof(sid));
	request_seeded(seed, 'K', share, sizeof(share));
	share[31] &= 0x7f;

	out_u8(&o, 0x16);			/* record: handshake */
	out_u16(&o, 0x0301);			/* record version, as 1.3 clients send */
	rec = out_len_begin(&o, 2);
	out_u8(&o, 0x01);			/* ClientHello */
	hs = out_len_begin(&o, 3);
	out_u16(&o, 0x0303);			/* legacy_version TLS 1.2 */
	out_bytes(&o, rnd, sizeof(rnd));
	out_u8(&o, sizeof(sid));		/* middlebox compatibility mode */
	out_bytes(&o, sid, sizeof(sid));
	lst = out_len_begin(&o, 2);
	for (size_t i = 0; i < sizeof(tls_suites) / sizeof(tls_suites[0]); i++)
		out_u16(&o, tls_suites[i]);
	out_len_end(&o, lst, 2);
	out_u8(&o, 1);				/* compression: null only */
	out_u8(&o, 0);
	exts = out_len_begin(&o, 2);

	tls_extensions(&o, name, namelen, share);

	/* RFC 7685 padding, as BoringSSL does it: a hello of 256..511 bytes
	 * (handshake header included) grows to 512. */
	if (!o.full) {
		hslen = o.len - hs + 1;
		if (hslen >= 0x100 && hslen < 0x200) {
			size_t pad = 0x200 - hslen;

			pad = pad >= 5 ? pad - 4 : 1;
			tls_ext_begin(&o, 0x0015, &l2);
			for (size_t i = 0; i < pad; i++)
				out_u8(&o, 0);
			out_len_end(&o, l2, 2);
		}
	}
	out_len_end(&o, exts, 2);
	out_len_end(&o, hs, 3);
	out_len_end(&o, rec, 2);
	return o.full ? 0 : o.len;
}
