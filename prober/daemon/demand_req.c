/*
 * demand_req.c -- an on-demand request read and its targets scoped
 * (demand_req.h).  The parse decides as bytes arrive: a prefix that
 * cannot become a request is refused at once, so a client learns of its
 * mistake without waiting for the deadline; and it goes on from the
 * first line not yet whole, so a client trickling its bytes costs the
 * daemon each byte once, not the whole buffer again at each read.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "demand_req.h"

/* A line's bytes are printable ASCII (a space only where the grammar
 * puts one, checked by the caller). */
static bool
printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

/* One line (without its '\n') into req; false with why. */
static bool
req_line(const char *s, size_t n, size_t lineno, struct demand_req *req, char *why,
    size_t whylen)
{
	static const char fmt[] = "format ", tgt[] = "target ";

	if (!printable(s, n)) {
		snprintf(why, whylen, "a control byte or a byte above ASCII in line %zu", lineno);
		return false;
	}
	if (n >= sizeof(fmt) - 1 && memcmp(s, fmt, sizeof(fmt) - 1) == 0) {
		if (lineno != 2) {
			snprintf(why, whylen, "%s", "format must be the line after the first, once");
			return false;
		}
		if (n == sizeof(fmt) - 1 + 4 && memcmp(s + sizeof(fmt) - 1, "json", 4) == 0)
			req->json = true;
		else if (n == sizeof(fmt) - 1 + 4 && memcmp(s + sizeof(fmt) - 1, "text", 4) == 0)
			req->json = false;
		else {
			snprintf(why, whylen, "%s", "format is json or text");
			return false;
		}
		return true;
	}
	if (n >= sizeof(tgt) - 1 && memcmp(s, tgt, sizeof(tgt) - 1) == 0) {
		const char *v = s + sizeof(tgt) - 1;
		size_t vn = n - (sizeof(tgt) - 1);

		if (vn == 0 || memchr(v, ' ', vn) != NULL) {
			snprintf(why, whylen, "%s", "a target is one word: HOST, HOST:PORT or [IPV6]:PORT");
			return false;
		}
		if (vn > TARGETS_TEXT_MAX) {
			snprintf(why, whylen, "a target longer than %d bytes", TARGETS_TEXT_MAX);
			return false;
		}
		if (req->n == DEMAND_TARGETS_MAX) {
			snprintf(why, whylen, "more than %d targets in one request", DEMAND_TARGETS_MAX);
			return false;
		}
		memcpy(req->target[req->n], v, vn);
		req->target[req->n][vn] = '\0';
		req->n++;
		return true;
	}
	snprintf(why, whylen, "%s", "a line that is neither format nor target");
	return false;
}

void
demand_parser_init(struct demand_parser *p, struct demand_req *req)
{
	memset(req, 0, sizeof(*req));
	p->req = req;
	p->off = 0;
	p->lineno = 1;
}

enum demand_parse
demand_req_feed(struct demand_parser *p, const char *buf, size_t len, size_t max, char *why,
    size_t whylen)
{
	const size_t ml = sizeof(DEMAND_MAGIC) - 1;
	struct demand_req *req = p->req;

	why[0] = '\0';
	/* the first line: a prefix of it may still become it */
	if (p->off == 0) {
		if (memcmp(buf, DEMAND_MAGIC, len < ml ? len : ml) != 0) {
			snprintf(why, whylen, "%s",
			    "not a request: the first line is not \"scaleprobe-demand 1\"");
			return DEMAND_BAD;
		}
		if (len < ml) {
			if (len < max)
				return DEMAND_MORE;
			snprintf(why, whylen, "no end of the request within %zu bytes", max);
			return DEMAND_TOO_LARGE;
		}
		p->off = ml;
	}
	/* from the first line not yet whole: the lines before were judged */
	for (;;) {
		const char *nl = memchr(buf + p->off, '\n', len - p->off);
		size_t n;

		if (nl == NULL) {
			/* what there is of the line must be sound already */
			n = len - p->off;
			if (!printable(buf + p->off, n)) {
				snprintf(why, whylen, "a control byte or a byte above ASCII in line "
				    "%zu", p->lineno + 1);
				return DEMAND_BAD;
			}
			if (n > TARGETS_TEXT_MAX + 16) {
				snprintf(why, whylen, "a line longer than %d bytes", TARGETS_TEXT_MAX + 16);
				return DEMAND_BAD;
			}
			if (len >= max) {
				snprintf(why, whylen, "no end of the request within %zu bytes", max);
				return DEMAND_TOO_LARGE;
			}
			return DEMAND_MORE;
		}
		n = (size_t)(nl - (buf + p->off));
		if (n == 0) {		/* the end */
			if (req->n > 0 && nl + 1 != buf + len) {
				snprintf(why, whylen, "%s", "bytes after the request's end");
				return DEMAND_BAD;
			}
			if (req->n == 0) {
				snprintf(why, whylen, "%s", "no target");
				return DEMAND_BAD;
			}
			req->used = len;
			return DEMAND_OK;
		}
		if (n > TARGETS_TEXT_MAX + 16) {
			snprintf(why, whylen, "a line longer than %d bytes", TARGETS_TEXT_MAX + 16);
			return DEMAND_BAD;
		}
		if (!req_line(buf + p->off, n, p->lineno + 1, req, why, whylen))
			return DEMAND_BAD;
		p->lineno++;
		p->off += n + 1;
	}
}

enum demand_parse
demand_req_parse(const char *buf, size_t len, size_t max, struct demand_req *req, char *why,
    size_t whylen)
{
	struct demand_parser p;

	demand_parser_init(&p, req);
	return demand_req_feed(&p, buf, len, max, why, whylen);
}

bool
demand_spec_has_port(const char *spec)
{
	const char *c;

	if (spec[0] == '[')
		return strstr(spec, "]:") != NULL;
	if ((c = strchr(spec, ':')) == NULL)
		return false;
	return strchr(c + 1, ':') == NULL;	/* two or more: a bare IPv6 */
}

/* Two names equal as DNS compares them: case aside, a final dot aside. */
static bool
name_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 0 && a[la - 1] == '.')
		la--;
	if (lb > 0 && b[lb - 1] == '.')
		lb--;
	return la == lb && strncasecmp(a, b, la) == 0;
}

/* Whether the group's entry g holds the request's target tg. */
static bool
holds(const struct target *g, const struct target *tg)
{
	if (tg->kind == TARGET_NAME)
		return g->kind == TARGET_NAME && name_eq(g->name, tg->name);
	if (g->kind == TARGET_ADDR)
		return addr_equal(&g->addr, &tg->addr);
	if (g->kind == TARGET_PREFIX)
		return addr_in_prefix(&tg->addr, &g->addr, g->plen);
	return false;
}

static int
port_add(uint16_t *ports, int n, uint16_t p)
{
	for (int i = 0; i < n; i++)
		if (ports[i] == p)
			return n;
	if (n < CONF_MAX_PORTS)
		ports[n++] = p;
	return n;
}

int
demand_ports(const struct conf *c, const struct target *tg, bool port_given, uint16_t *ports,
    char *why, size_t whylen)
{
	int n = 0;
	bool held = false;

	if (c->on_demand == ON_DEMAND_OFF) {
		snprintf(why, whylen, "%s", "on-demand is off in the daemon's configuration");
		return 0;
	}
	if (tg->kind == TARGET_PREFIX) {
		snprintf(why, whylen, "%s: a prefix: on demand probes hosts, not ranges",
		    tg->as_given);
		return 0;
	}
	if (c->on_demand == ON_DEMAND_ALLOWED) {
		if (port_given)
			ports[n++] = tg->port;
		else
			for (int i = 0; i < c->nports; i++)
				n = port_add(ports, n, c->ports[i]);
		return n;
	}
	for (size_t gi = 0; gi < c->ngroups; gi++) {
		const struct targets *t = &c->groups[gi].targets;

		for (size_t k = 0; k < t->n; k++) {
			if (!holds(&t->v[k], tg))
				continue;
			held = true;
			if (!port_given || t->v[k].port == tg->port)
				n = port_add(ports, n, t->v[k].port);
		}
	}
	if (n == 0) {
		if (held)
			snprintf(why, whylen, "%s: no group probes it on that port "
			    "(on-demand group-targets)", tg->as_given);
		else
			snprintf(why, whylen, "%s: not a target of any group "
			    "(on-demand group-targets)", tg->as_given);
	}
	return n;
}
