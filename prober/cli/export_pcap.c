/*
 * export_pcap.c -- a row's evidence as pcapng and its manifest entry
 * (export_pcap.h).
 */
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "evidence.h"
#include "export_pcap.h"
#include "export_render.h"

/* The source address of item it's packet, "?" when it has none. */
static const char *
ip_source(const struct path_evidence *ev, const struct evidence_item *it, char *buf,
    size_t blen)
{
	const uint8_t *p = ev->bytes != NULL ? ev->bytes + it->off : NULL;
	size_t len = p != NULL ? it->len : 0;
	struct addr a;

	memset(&a, 0, sizeof(a));
	if (len >= 20 && (p[0] >> 4) == 4) {
		a.family = ADDR_V4;
		memcpy(a.bytes, p + 12, 4);
	} else if (len >= 40 && (p[0] >> 4) == 6) {
		a.family = ADDR_V6;
		memcpy(a.bytes, p + 8, 16);
	} else {
		snprintf(buf, blen, "?");
		return buf;
	}
	return addr_format(&a, buf, blen);
}

/* Only printable ASCII of the stored fields goes into a comment. */
static void
clean_fields(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; s != NULL && *s != '\0' && o + 1 < len; s++)
		buf[o++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
	buf[o] = '\0';
}

static int
put(struct pcapng_buf *b, const struct history_row *r, int *n, const struct path_evidence *ev,
    const struct evidence_item *it, const char *comment)
{
	/* the evidence keeps no time per packet: the result's time, and the
	 * packets a microsecond apart in the order they tell the story */
	uint64_t ts = (uint64_t)(r->time_ns > 0 ? r->time_ns : 0) + (uint64_t)*n * 1000u;

	/* an empty packet (a store may hold one) shows nothing: left out */
	if (it->len == 0 || ev->bytes == NULL)
		return 0;
	(*n)++;
	return pcapng_packet(b, ts, ev->bytes + it->off, it->len, comment);
}

int
export_pcap_build(const struct history_row *r, const uint8_t *bytes, size_t len,
    struct pcapng_buf *b, int *npackets, const char **why)
{
	struct path_evidence *ev = NULL;
	const struct evidence_item *it;
	char comment[256], fields[EVIDENCE_FIELDS], src[ADDR_STRLEN];
	int v = r->scale_idx, rc = 0;

	*npackets = 0;
	if (evidence_unpack(bytes, len, &ev, why) != 0)
		return -1;
	if (ev == NULL || v < 0) {
		*why = "no packets kept for this result";
		evidence_free(&ev);
		return -1;
	}
	pcapng_begin(b, "scaleprobe export");
	if ((it = evidence_find(ev, v, 0, EVIDENCE_SYN)) == NULL)
		it = evidence_find(ev, v, 1, EVIDENCE_SYN);
	if (it != NULL) {
		clean_fields(it->fields, fields, sizeof(fields));
		snprintf(comment, sizeof(comment), "SYN as sent, window scale %d (%s)",
		    r->scale_sent, fields);
		rc |= put(b, r, npackets, ev, it, comment);
	}
	for (int ttl = 1; ttl <= 255; ttl++) {
		const char *role = "";

		if ((it = evidence_find(ev, v, ttl, EVIDENCE_QUOTE)) == NULL)
			continue;
		if (ttl == r->hop_index)
			role = ", the hop that changed the option";
		else if (ttl == r->last_clean_index)
			role = ", the last clean hop";
		clean_fields(it->fields, fields, sizeof(fields));
		snprintf(comment, sizeof(comment),
		    "quote from hop %d (%s) of the SYN sent with TTL %d%s (%s)", ttl,
		    ip_source(ev, it, src, sizeof(src)), ttl, role, fields);
		rc |= put(b, r, npackets, ev, it, comment);
	}
	if ((it = evidence_find(ev, v, 0, EVIDENCE_REPLY)) != NULL) {
		snprintf(comment, sizeof(comment), "the destination's answer (%s) from %s",
		    r->reply != NULL && strcmp(r->reply, "syn-ack") == 0 ? "SYN-ACK" :
		    r->reply != NULL && strcmp(r->reply, "rst") == 0 ? "RST" : "reply",
		    ip_source(ev, it, src, sizeof(src)));
		rc |= put(b, r, npackets, ev, it, comment);
	}
	evidence_free(&ev);
	if (rc != 0 || b->overflow) {
		*why = "the evidence does not fit a file";
		return -1;
	}
	if (*npackets == 0) {
		*why = "no packets kept for this scale";
		return -1;
	}
	return 0;
}

void
export_pcap_manifest(struct json *j, const struct history_row *r, const char *file,
    int npackets, const char *why)
{
	char t[JSON_TIME_LEN];

	json_object_begin(j);
	json_kstring(j, "file", file);
	if (file == NULL)
		json_kstring(j, "why", why);
	json_kint(j, "packets", npackets);
	json_kstring(j, "target", r->target);
	json_kstring(j, "address", r->address);
	json_kint_or_null(j, "port", r->port);
	json_kstring(j, "family", r->family);
	json_kstring(j, "vantage", r->vantage);
	json_kstring(j, "verdict", r->verdict);
	export_time(r->first_ns, t);
	json_kstring(j, "first_seen", t[0] ? t : NULL);
	export_time(r->time_ns, t);
	json_kstring(j, "last_seen", t[0] ? t : NULL);
	json_kint(j, "times_seen", r->count);
	/* what the path did to the option: sent, as the changing hop quoted
	 * it, as the server applied it and as its SYN-ACK carried its own */
	json_key(j, "option_diff");
	json_object_begin(j);
	json_kstring(j, "option", "window scale");
	json_kint_or_null(j, "sent", r->scale_sent);
	json_kint_or_null(j, "quoted", r->scale_quoted);
	json_kint_or_null(j, "effective", r->scale_effective);
	json_kint_or_null(j, "syn_ack_own", r->sa_wscale);
	json_kint_or_null(j, "hop_index", r->hop_index);
	json_kstring(j, "hop_address", r->hop_address);
	json_kint_or_null(j, "last_clean_index", r->last_clean_index);
	json_kstring(j, "last_clean_address", r->last_clean_address);
	json_object_end(j);
	json_object_end(j);
}

void
export_pcap_name(const struct history_row *r, unsigned i, char *buf, size_t len)
{
	char a[64];
	size_t o = 0;

	for (const char *s = r->address; *s != '\0' && o + 1 < sizeof(a); s++)
		a[o++] = (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		    (*s >= 'A' && *s <= 'F') || *s == '.' ? *s : '_';
	a[o] = '\0';
	snprintf(buf, len, "%04u-%s-%d-s%d.pcapng", i, a, r->port, r->scale_sent);
}

/* n decimal digits (at most max) at *p, after an optional '-' when
 * sign; *p moved past them.  Whether there were 1..max. */
static bool
digits(const char **p, size_t max, bool sign, unsigned *v)
{
	const char *s = *p;
	size_t n = 0;

	*v = 0;
	if (sign && *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9' && n < max; s++, n++)
		*v = *v * 10 + (unsigned)(*s - '0');
	if (n == 0 || (*s >= '0' && *s <= '9'))
		return false;
	*p = s;
	return true;
}

bool
export_pcap_own_name(const char *name, unsigned *row)
{
	const char *p = name;
	unsigned v;
	size_t n = 0;

	if (!digits(&p, 9, false, row) || p - name < 4 || *p++ != '-')
		return false;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F') ||
	    *p == '.' || *p == '_'; p++)
		n++;
	if (n == 0 || n > 63 || *p++ != '-' || !digits(&p, 5, true, &v) ||
	    *p++ != '-' || *p++ != 's' || !digits(&p, 3, true, &v))
		return false;
	return strcmp(p, ".pcapng") == 0;
}

/* A JSON string's text after its opening quote, into buf (len bytes; ""
 * when longer, or when it holds an escape: no name of ours has one).
 * 0, or -1 at the end of f. */
static int
read_string(FILE *f, char *buf, size_t len)
{
	size_t n = 0;
	bool bad = false;
	int c;

	while ((c = getc(f)) != EOF && c != '"') {
		if (c == '\\') {
			bad = true;
			if (getc(f) == EOF)
				return -1;
			continue;
		}
		if (n + 1 < len)
			buf[n++] = (char)c;
		else
			bad = true;
	}
	if (c == EOF)
		return -1;
	if (len > 0)
		buf[bad ? 0 : n] = '\0';
	return 0;
}

static int
next_byte(FILE *f)
{
	int c;

	while ((c = getc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		;
	return c;
}

void
export_pcap_manifest_begin(struct export_manifest *m, FILE *f)
{
	memset(m, 0, sizeof(*m));
	m->f = f;
}

int
export_pcap_manifest_next(struct export_manifest *m, char *name, size_t len)
{
	char key[16];
	int c;

	if (len == 0 || m->bad)
		return -1;
	while (!m->done && (c = next_byte(m->f)) != EOF) {
		switch (c) {
		case '[':
		case '{':
			if ((m->depth == 0) != (c == '[' && !m->started) || m->depth >= 64)
				goto bad;
			m->started = true;
			m->want_key = ++m->depth == 2 && c == '{';
			break;
		case ']':
		case '}':
			if (m->depth == 0)
				goto bad;
			m->done = --m->depth == 0;
			m->want_key = false;
			break;
		case ',':
			m->want_key = m->depth == 2;
			break;
		case '"':
			if (m->depth == 0 || read_string(m->f, key, sizeof(key)) != 0)
				goto bad;
			if (!(m->depth == 2 && m->want_key))
				break;
			/* a key of one of the array's objects */
			m->want_key = false;
			if (next_byte(m->f) != ':')
				goto bad;
			if (strcmp(key, "file") != 0)
				break;
			if ((c = next_byte(m->f)) == '"') {
				if (read_string(m->f, name, len) != 0)
					goto bad;
				return 1;
			}
			if (c == EOF)
				goto bad;
			ungetc(c, m->f);
			break;
		default:
			if (m->depth == 0)
				goto bad;
			break;
		}
	}
	if (m->done)
		return 0;
bad:
	m->bad = true;
	return -1;
}
