/*
 * conf_targets.c -- targets with the ports setting applied: a target that
 * names no port is probed on each of the list's ports, one entry each
 * (as written, so results still name the target as the user wrote it).
 * Pure: target files are read by the caller.
 */
#include <string.h>

#include "conf.h"

/* Whether the entry's text names its port: parsed with another default,
 * its port would not change. */
static bool
names_port(const struct target *tg, bool allow_large)
{
	struct targets_opts o = { allow_large, tg->port == 1 ? 2 : 1 };
	struct targets t;
	bool named;

	targets_init(&t);
	named = targets_parse_spec(&t, tg->as_given, &o) == 0 && t.v[0].port == tg->port;
	targets_free(&t);
	return named;
}

/* Entries [from, to) of t, each again on every other port of the list. */
static void
other_ports(struct targets *t, size_t from, size_t to, bool allow_large,
    const uint16_t *ports, int nports)
{
	for (size_t k = from; k < to; k++) {
		if (names_port(&t->v[k], allow_large))
			continue;
		for (int i = 1; i < nports; i++) {
			struct targets_opts o = { allow_large, ports[i] };

			/* it parsed once: it parses again */
			if (targets_parse_spec(t, t->v[k].as_given, &o) == 0)
				t->v[t->n - 1].line = t->v[k].line;
		}
	}
}

int
conf_targets_spec(struct targets *t, const char *spec, bool allow_large,
    const uint16_t *ports, int nports)
{
	struct targets_opts o = { allow_large, ports[0] };
	size_t before = t->n;

	if (targets_parse_spec(t, spec, &o) != 0)
		return -1;
	other_ports(t, before, t->n, allow_large, ports, nports);
	return 0;
}

int
conf_targets_buf(struct targets *t, const char *buf, size_t len, const char *fname,
    bool allow_large, const uint16_t *ports, int nports, size_t *nwritten)
{
	struct targets_opts o = { allow_large, ports[0] };
	size_t before = t->n;

	if (targets_parse_buf(t, buf, len, fname, &o) != 0)
		return -1;
	*nwritten = t->n - before;
	other_ports(t, before, t->n, allow_large, ports, nports);
	return 0;
}
