/*
 * paths.c -- targets to paths, one at a time: the target space (blocked
 * parts and duplicates, target_space.c), names resolved in the run's event loop
 * (resolve.c, which reads /etc/hosts and resolv.conf -- in a network
 * namespace, ip netns exec's /etc/netns/NAME ones), and the route of each
 * path asked when it is handed out.  Nothing here sends a probe.
 */
#include <sys/random.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "log.h"
#include "paths.h"
#include "resolve.h"
#include "shard.h"
#include "srcrange_check.h"
#include "target_stream.h"

/* Addresses passed over (blocked, duplicates, no route) in one call of
 * paths_next before it lets the event loop run: a few milliseconds. */
#define PATHS_SKIP_MAX 4096
/* ... and in paths_open, looking for the first path: about a second of
 * route lookups. */
#define PATHS_OPEN_SKIP_MAX 65536

/* One line per target that the blocklist refuses (all or part of). */
static void
paths_blocked(struct paths *p, const struct target *tg, enum blocklist_part part,
    const struct blocklist_entry *why, const struct addr *a)
{
	char buf[ADDR_STRLEN];

	p->blocked_targets++;
	if (part == BLOCKLIST_SOME && why->plen <= tg->plen)
		log_warnx("%s: blocked but for what --allow lifts: it is in %s",
		    tg->as_given, why->text);
	else if (part == BLOCKLIST_SOME)
		log_warnx("%s: blocked in part: the addresses in %s; --allow lifts it",
		    tg->as_given, why->text);
	else if (a == NULL && tg->kind == TARGET_PREFIX)
		log_warnx("%s: blocked: %llu addresses, e.g. %s is in %s; --allow lifts it",
		    tg->as_given, (unsigned long long)target_count(tg),
		    addr_format(&tg->addr, buf, sizeof(buf)), why->text);
	else
		log_warnx("%s: blocked: %s is in %s; --allow lifts it", tg->as_given,
		    addr_format(a != NULL ? a : &tg->addr, buf, sizeof(buf)), why->text);
}

/* --- chunks --------------------------------------------------------------- */

/* The chunk whose entries hold tg. */
static struct paths_chunk *
chunk_of_target(struct paths *p, const struct target *tg)
{
	for (struct paths_chunk *c = p->chunks; c != NULL; c = c->next)
		if (c->list->n > 0 && (uintptr_t)tg >= (uintptr_t)c->list->v &&
		    (uintptr_t)tg < (uintptr_t)(c->list->v + c->list->n))
			return c;
	return NULL;
}

/* An owned chunk's texts into one block: a path's target then says which
 * chunk it is of (paths_done), and the entries cost one allocation. */
static void
chunk_pack(struct paths_chunk *c)
{
	size_t len = 0, off = 0;

	for (size_t i = 0; i < c->t.n; i++)
		len += strlen(c->t.v[i].as_given) + 1 +
		    (c->t.v[i].name != NULL ? strlen(c->t.v[i].name) + 1 : 0);
	c->arena = xcalloc(1, len ? len : 1);
	c->arena_len = len;
	for (size_t i = 0; i < c->t.n; i++) {
		struct target *tg = &c->t.v[i];
		size_t n = strlen(tg->as_given) + 1;

		memcpy(c->arena + off, tg->as_given, n);
		free(tg->as_given);
		tg->as_given = c->arena + off;
		off += n;
		if (tg->name != NULL) {
			n = strlen(tg->name) + 1;
			memcpy(c->arena + off, tg->name, n);
			free(tg->name);
			tg->name = c->arena + off;
			off += n;
		}
	}
}

static void
chunk_tell_unrouted(struct paths_chunk *c)
{
	for (size_t i = 0; c->unrouted_per != NULL && i < c->space.n; i++)
		if (c->unrouted_per[i] > 1)
			log_warnx("%s: %llu more addresses without a route", c->space.v[i].target,
			    (unsigned long long)(c->unrouted_per[i] - 1));
}

static void
chunk_free(struct paths_chunk *c)
{
	chunk_tell_unrouted(c);
	free(c->unrouted_per);
	free(c->names);
	target_space_free(&c->space);
	if (c->arena != NULL) {
		/* the texts are the arena's */
		for (size_t i = 0; i < c->t.n; i++)
			c->t.v[i].as_given = c->t.v[i].name = NULL;
		free(c->arena);
	}
	targets_free(&c->t);
	free(c);
}

/* Frees c once walked with nothing of it in flight (owned chunks only:
 * the first is the caller's list, kept to the end). */
static void
chunk_release(struct paths *p, struct paths_chunk *c)
{
	if (c->arena == NULL || !c->walked || c->refs > 0)
		return;
	for (struct paths_chunk **pp = &p->chunks; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (p->cur == c)
		p->cur = NULL;
	chunk_free(c);
}

void
paths_done(struct paths *p, const char *target)
{
	if (!p->streaming)
		return;
	for (struct paths_chunk *c = p->chunks; c != NULL; c = c->next)
		if (c->arena != NULL && (uintptr_t)target >= (uintptr_t)c->arena &&
		    (uintptr_t)target < (uintptr_t)c->arena + c->arena_len) {
			if (c->refs > 0)
				c->refs--;
			chunk_release(p, c);
			return;
		}
}

/* Whether an earlier chunk (or a name) handed (a, port) out already. */
static bool
paths_sent_before(const struct paths *p, const struct addr *a, uint16_t port)
{
	if (addrset_has(&p->sent, a, port))
		return true;
	for (size_t i = 0; i < p->nlarge; i++)
		if (p->large[i].port == port && addr_in_prefix(a, &p->large[i].net,
		    p->large[i].plen))
			return true;
	return false;
}

/* A chunk walked: what it held is remembered for the chunks after it. */
static void
chunk_remember(struct paths *p, struct paths_chunk *c)
{
	for (size_t i = 0; i < c->space.n; i++) {
		const struct target_space_rec *r = &c->space.v[i];

		if (r->count > TARGETS_LARGE) {
			p->large = xreallocarray(p->large, p->nlarge + 1, sizeof(*p->large));
			p->large[p->nlarge].net = r->net;
			p->large[p->nlarge].plen = r->plen;
			p->large[p->nlarge].port = r->port;
			p->nlarge++;
			continue;
		}
		for (uint64_t k = 0; k < r->count; k++) {
			struct addr a;

			target_space_address(r, k, &a);
			addrset_put(&p->sent, &a, r->port);
		}
	}
	addrset_flush(&p->sent);
}

/* What a chunk of addresses only (no names, whose answers still look its
 * entries and space up) no longer needs: its entries once its space holds
 * them, the space once walked.  Its texts stay while a path of it is in
 * flight; they are all a walked chunk costs. */
static void
chunk_shed(struct paths_chunk *c)
{
	if (c->arena == NULL || c->nnames > 0)
		return;
	/* the texts are the arena's */
	free(c->t.v);
	c->t.v = NULL;
	c->t.n = c->t.cap = 0;
	if (!c->walked)
		return;
	chunk_tell_unrouted(c);
	free(c->unrouted_per);
	c->unrouted_per = NULL;
	target_space_free(&c->space);
}

/* --- names ---------------------------------------------------------------- */

static size_t
paths_seen_hash(const struct addr *a, uint16_t port)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < addr_len(a); i++)
		h = (h ^ a->bytes[i]) * 1099511628211ull;
	h = (h ^ port) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

/* Adds (a, port); false when it was there. */
static bool
paths_seen_add(struct paths_seen *s, const struct addr *a, uint16_t port)
{
	size_t i;

	if (s->n * 2 >= s->cap) {
		struct paths_seen old = *s;

		s->cap = old.cap ? old.cap * 2 : 64;
		s->v = xcalloc(s->cap, sizeof(*s->v));
		s->n = 0;
		for (size_t k = 0; k < old.cap; k++)
			if (old.v[k].used)
				paths_seen_add(s, &old.v[k].a, old.v[k].port);
		free(old.v);
	}
	for (i = paths_seen_hash(a, port) & (s->cap - 1); s->v[i].used;
	    i = (i + 1) & (s->cap - 1))
		if (s->v[i].port == port && addr_equal(&s->v[i].a, a))
			return false;
	s->v[i].used = true;
	s->v[i].a = *a;
	s->v[i].port = port;
	s->n++;
	return true;
}

static void
paths_found_push(struct paths *p, struct paths_chunk *ch, const struct target *tg,
    const struct addr *a)
{
	if (p->found_n == p->found_cap) {
		size_t cap = p->found_cap ? p->found_cap * 2 : 64;
		struct paths_found *v = xreallocarray(NULL, cap, sizeof(*v));

		for (size_t i = 0; i < p->found_n; i++)
			v[i] = p->found[(p->found_head + i) % p->found_cap];
		free(p->found);
		p->found = v;
		p->found_cap = cap;
		p->found_head = 0;
	}
	p->found[(p->found_head + p->found_n) % p->found_cap].tg = tg;
	p->found[(p->found_head + p->found_n) % p->found_cap].ch = ch;
	if (ch != NULL)
		ch->refs++;
	p->found[(p->found_head + p->found_n) % p->found_cap].a = *a;
	p->found_n++;
}

/* A name's answer: each address not blocked, and not probed for another
 * target already, waits for paths_next. */
static void
paths_resolved(void *arg, void *tag, const struct addr *addrs, size_t n, const char *error)
{
	struct paths *p = arg;
	const struct target *tg = tag;
	struct paths_chunk *ch = chunk_of_target(p, tg);
	const struct blocklist_entry *first_why = NULL;
	struct addr first_blocked;
	size_t blocked = 0;

	if (n == 0) {
		log_warnx("%s: cannot resolve: %s", tg->as_given, error);
		p->unresolved++;
	}
	for (size_t i = 0; i < n; i++) {
		const struct blocklist_entry *why = p->bl != NULL ?
		    blocklist_check(p->bl, &addrs[i]) : NULL;

		if (why != NULL) {
			if (blocked++ == 0) {
				first_why = why;
				first_blocked = addrs[i];
			}
			continue;
		}
		if (ch != NULL && target_space_holds(&ch->space, &addrs[i], tg->port))
			continue;
		/* streamed: the compact set, which later chunks read too */
		if (p->streaming ? (paths_sent_before(p, &addrs[i], tg->port) ||
		    !addrset_add(&p->sent, &addrs[i], tg->port)) :
		    !paths_seen_add(&p->seen, &addrs[i], tg->port))
			continue;
		paths_found_push(p, ch, tg, &addrs[i]);
	}
	if (blocked == 1)
		paths_blocked(p, tg, BLOCKLIST_ALL, first_why, &first_blocked);
	else if (blocked > 1) {
		char buf[ADDR_STRLEN];

		p->blocked_targets++;
		log_warnx("%s: blocked: %zu addresses, e.g. %s is in %s; --allow lifts it",
		    tg->as_given, blocked, addr_format(&first_blocked, buf, sizeof(buf)),
		    first_why->text);
	}
	if (ch != NULL && ch->refs > 0) {
		ch->refs--;		/* the name's own, taken when asked */
		chunk_release(p, ch);
	}
	if (p->ready != NULL)
		p->ready(p->ready_arg);
}

/* A chunk's names asked, in the run's keyed order: a list of names of one
 * network must not reach it back to back. */
static int
paths_ask_names(struct paths *p, struct paths_chunk *c)
{
	struct permute order;

	if (c->nnames == 0 || p->res == NULL)
		return 0;
	if (permute_init(&order, c->nnames, p->key) != 0)
		return -1;
	for (size_t i = 0; i < c->nnames; i++) {
		const struct target *tg = c->names[permute_at(&order, i)];

		resolver_query(p->res, tg->name, (void *)(uintptr_t)tg, paths_resolved, p);
	}
	return 0;
}

int
paths_resolve(struct paths *p, struct event_base *base, void (*ready)(void *arg),
    void *arg)
{
	struct resolver_config rc;
	char err[256];

	if (p->nnames == 0)
		return 0;
	memset(&rc, 0, sizeof(rc));
	if ((p->res = resolver_new(base, &rc, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	p->ready = ready;
	p->ready_arg = arg;
	/* the chunks loaded so far; the later ones are asked as they load */
	for (struct paths_chunk *c = p->chunks; c != NULL; c = c->next)
		if (paths_ask_names(p, c) != 0)
			return -1;
	return 0;
}

static int
paths_iface(struct paths *p, const char *name)
{
	for (int i = 0; i < p->nifaces; i++)
		if (strcmp(p->ifnames[i], name) == 0)
			return i;
	if (p->nifaces == PATHS_MAX_IFACES)
		return -1;
	snprintf(p->ifnames[p->nifaces], ROUTE_IFNAMSIZ, "%s", name);
	return p->nifaces++;
}

/* Whether the source range of family was checked on ifname. */
static bool
range_checked(const struct paths *p, const char *ifname, int family)
{
	for (int i = 0; i < p->nrange_ok; i++)
		if (p->range_ok[i].family == family && strcmp(p->range_ok[i].ifname, ifname) == 0)
			return true;
	return false;
}

/* The route of a path to a; 1 and *out, 0 when a has no route (told, for
 * a prefix once: record rec of chunk c counts the rest; c NULL: told each
 * time), -1 to stop the run. */
static int
paths_route(struct paths *p, const char *target, const char *host, const struct addr *a,
    uint16_t port, struct paths_chunk *c, size_t rec, struct path *out)
{
	const struct addr *forced = a->family == ADDR_V4 ? p->source4 : p->source6;
	const struct srcrange *range = a->family == ADDR_V4 ? p->range4 : p->range6;
	char ifname[ROUTE_IFNAMSIZ], err[256];

	memset(out, 0, sizeof(*out));
	if (range != NULL)
		forced = NULL;	/* the range replaces --source */
	if (route_lookup_on(p->rt, a, forced, &out->src, ifname, err, sizeof(err)) != 0) {
		/* a prefix without a route would be a line per address: the
		 * first is told, the rest counted */
		/* the counts only once an address has no route: most lists
		 * never need them */
		if (c != NULL && c->unrouted_per == NULL)
			c->unrouted_per = xcalloc(c->space.n, sizeof(*c->unrouted_per));
		if (c == NULL || c->unrouted_per[rec]++ == 0)
			log_warnx("%s: %s", target, err);
		p->unrouted++;
		return 0;
	}
	out->iface = paths_iface(p, p->ifname != NULL ? p->ifname : ifname);
	if (out->iface < 0) {
		log_warnx("targets are reached through more than %d interfaces; "
		    "use --interface any", PATHS_MAX_IFACES);
		return -1;
	}
	/* every source of the range on the interface the route leaves by,
	 * once per interface: a probe from an address that is not there
	 * draws replies that go elsewhere */
	if (range != NULL && !range_checked(p, ifname, a->family)) {
		if (srcrange_check(range, ifname, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			return -1;
		}
		if (p->nrange_ok < 2 * PATHS_MAX_IFACES) {
			snprintf(p->range_ok[p->nrange_ok].ifname, ROUTE_IFNAMSIZ, "%s", ifname);
			p->range_ok[p->nrange_ok++].family = a->family;
		}
	}
	if (range != NULL)
		out->src = srcrange_addr(range, srcrange_pick(range, p->key, a, port));
	out->target = target;
	out->host = host;
	out->dst = *a;
	out->port = port;
	return 1;
}

void
paths_files_add(struct paths_files *files, const char *path, bool allow_large,
    const uint16_t *ports, int nports, const struct targets_scan *sum)
{
	files->v = xreallocarray(files->v, files->n + 1, sizeof(*files->v));
	files->v[files->n++] = (struct paths_file){ path, allow_large, ports, nports, NULL };
	files->entries += sum->entries;
	files->addresses += sum->addresses;
	files->names += sum->names;
	files->v4 |= sum->v4;
	files->v6 |= sum->v6;
}

/* A chunk of list on its space (blocked targets told), frozen in the
 * run's order, last in p's chunks. */
static struct paths_chunk *
chunk_add(struct paths *p, struct paths_chunk *c, const struct targets *list)
{
	struct paths_chunk **pp;

	c->list = list;
	target_space_init(&c->space, p->bl_space);
	for (size_t i = 0; i < list->n; i++) {
		const struct target *tg = &list->v[i];
		const struct blocklist_entry *why;
		enum blocklist_part part;

		if (tg->kind == TARGET_NAME) {
			/* resolved as the run goes (paths_resolve) */
			c->names = xreallocarray(c->names, c->nnames + 1, sizeof(*c->names));
			c->names[c->nnames++] = tg;
			continue;
		}
		part = target_space_add(&c->space, tg, i, NULL, &why);
		if (part != BLOCKLIST_NONE)
			paths_blocked(p, tg, part, why, NULL);
	}
	/* each name holds its chunk until its answer came */
	c->refs += c->nnames;
	target_space_freeze(&c->space, p->key);
	for (pp = &p->chunks; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = c;
	p->cur = c;
	p->chunks_loaded++;
	{
		size_t live = 0, spaces = 0;

		for (struct paths_chunk *k = p->chunks; k != NULL; k = k->next) {
			live++;
			/* the caller's list (no arena) is not a streamed chunk */
			spaces += k->arena != NULL && k->space.frozen;
		}
		if (live > p->chunks_live_max)
			p->chunks_live_max = live;
		if (spaces > p->spaces_live_max)
			p->spaces_live_max = spaces;
	}
	return c;
}

/* The next PATHS_CHUNK entries of the files: 1 with a chunk loaded, 0 at
 * the end of the last file, -1 when a file changed under the run (it was
 * scanned whole before: an error now is one it did not have). */
static int
paths_load(struct paths *p)
{
	struct paths_chunk *c = xcalloc(1, sizeof(*c));
	const struct paths_files *f = &p->files;
	int rc;

	targets_init(&c->t);
	while (c->t.n < PATHS_CHUNK && p->file_i < f->n) {
		const struct shard_sel *shard = f->v[p->file_i].shard;
		size_t from = c->t.n;
		uint64_t seen = 0, kept = 0;

		if (p->file == NULL && (p->file = target_file_open(f->v[p->file_i].path,
		    f->v[p->file_i].allow_large, f->v[p->file_i].ports, f->v[p->file_i].nports,
		    &c->t)) == NULL)
			break;
		rc = tstream_fill(target_file_stream(p->file), &c->t, PATHS_CHUNK - c->t.n);
		/* a sharded group's file: only this vantage's targets stay */
		if (shard != NULL)
			shard_keep(&c->t, from, shard, &seen, &kept);
		if (c->t.nerrors > 0)
			break;
		if (rc == 0) {
			target_file_close(p->file);
			p->file = NULL;
			p->file_i++;
		}
	}
	if (c->t.nerrors > 0) {
		fputs(strbuf_str(&c->t.errors), stderr);
		log_warnx("%s: changed while it was read: stopping", f->v[p->file_i].path);
		targets_free(&c->t);
		free(c);
		return -1;
	}
	if (c->t.n == 0) {
		targets_free(&c->t);
		free(c);
		return 0;
	}
	chunk_pack(c);
	chunk_add(p, c, &c->t);
	chunk_shed(c);
	if (p->res != NULL && paths_ask_names(p, c) != 0)
		return -1;
	return 1;
}

/* The next path: names' addresses first (they were waited for), then the
 * walk of the chunk, then the next chunk.  With budget, at most that many
 * addresses are passed over (blocked, duplicates, no route) before
 * PATHS_LATER. */
static int
paths_walk(struct paths *p, struct path *out, uint64_t *budget)
{
	struct target_space_rec *rec;
	struct addr a;
	int rc;

	p->names_wait = false;
	while (p->found_n > 0) {
		struct paths_found f = p->found[p->found_head];

		p->found_head = (p->found_head + 1) % p->found_cap;
		p->found_n--;
		rc = paths_route(p, f.tg->as_given, f.tg->name, &f.a, f.tg->port, NULL, 0, out);
		if (rc == 1 && f.ch != NULL)
			f.ch->refs++;		/* the path's */
		if (f.ch != NULL) {
			f.ch->refs--;		/* the found entry's */
			chunk_release(p, f.ch);
		}
		if (rc != 0)
			return rc;
	}
	for (;;) {
		struct paths_chunk *c = p->cur;

		while (c != NULL && (rc = target_space_next(&c->space, &rec, &a, budget)) == 1) {
			if (p->streaming && p->chunks_loaded > 1 &&
			    paths_sent_before(p, &a, rec->port)) {
				p->skipped_earlier++;
				if (budget != NULL && *budget > 0 && --*budget == 0)
					return PATHS_LATER;
				continue;
			}
			if ((rc = paths_route(p, rec->target, rec->host, &a, rec->port,
			    c, (size_t)(rec - c->space.v), out)) != 0) {
				if (rc == 1)
					c->refs++;
				return rc;
			}
			/* an address without a route costs as a skipped one */
			if (budget != NULL && *budget > 0 && --*budget == 0)
				return PATHS_LATER;
		}
		if (c != NULL && rc == TARGET_SPACE_LATER)
			return PATHS_LATER;
		if (!p->streaming)
			return 0;
		if (c != NULL) {
			c->walked = true;
			chunk_remember(p, c);
			chunk_shed(c);
			p->cur = NULL;
			chunk_release(p, c);
		}
		/* names still out hold memory: the next chunk waits for most
		 * of them (the resolver's answers ask again) */
		if (p->res != NULL && resolver_pending(p->res) > PATHS_NAMES_AHEAD) {
			p->names_wait = true;
			return PATHS_LATER;
		}
		if ((rc = paths_load(p)) <= 0)
			return rc;
	}
}

int
paths_open(struct paths *p, const struct targets *t, const struct paths_opts *o)
{
	uint64_t budget;
	struct paths_chunk *first;
	int rc;

	memset(p, 0, sizeof(*p));
	p->bl = o->bl;
	p->bl_space = o->bl;
	p->source4 = o->source4;
	p->source6 = o->source6;
	p->range4 = o->range4;
	p->range6 = o->range6;
	p->ifname = o->ifname;
	if (o->key != NULL)
		memcpy(p->key, o->key, sizeof(p->key));
	else if (getrandom(p->key, sizeof(p->key), 0) != (ssize_t)sizeof(p->key)) {
		log_warn("getrandom");
		return -1;
	}
	first = chunk_add(p, xcalloc(1, sizeof(*first)), t);
	p->nnames = first->nnames;
	if (p->nnames > 0)
		p->want_v4 = p->want_v6 = 1;
	for (size_t i = 0; i < first->space.n; i++) {
		if (first->space.v[i].net.family == ADDR_V4)
			p->want_v4 = 1;
		else
			p->want_v6 = 1;
	}
	p->total = first->space.total;
	if (o->files != NULL && o->files->n > 0) {
		p->files = *o->files;
		p->streaming = true;
		addrset_init(&p->sent, p->key);
		/* a name counts as one address in the scan: not here, as in
		 * the first chunk's space */
		p->total += p->files.addresses - p->files.names;
		p->nnames += p->files.names;
		p->want_v4 |= p->files.v4;
		p->want_v6 |= p->files.v6;
	}
	if ((p->rt = o->rt) == NULL) {
		if ((p->rt = route_open()) == NULL) {
			log_warn("route: netlink");
			return -1;
		}
		p->own_rt = true;
	}
	/* a first path, so that a list with nothing to probe is told before
	 * any table exists; but a prefix without a route (or blocked but for
	 * a little) is not walked whole here, in silence: the run goes on
	 * with it */
	budget = PATHS_OPEN_SKIP_MAX;
	if ((rc = paths_walk(p, &p->first, &budget)) < 0)
		return -1;
	p->have_first = rc == 1;
	p->more_now = rc == PATHS_LATER && !p->names_wait;
	p->n = p->have_first;
	return 0;
}

int
paths_next(struct paths *p, struct path *out)
{
	uint64_t budget;
	int rc;

	if (p->have_first) {
		*out = p->first;
		p->have_first = false;
		return 1;
	}
	budget = PATHS_SKIP_MAX;
	p->more_now = false;
	if ((rc = paths_walk(p, out, &budget)) == 1)
		p->n++;
	else if (rc == PATHS_LATER)
		p->more_now = !p->names_wait;
	else if (rc == 0 && p->res != NULL && resolver_pending(p->res) > 0)
		rc = PATHS_LATER;
	return rc;
}

void
paths_free(struct paths *p)
{
	while (p->chunks != NULL) {
		struct paths_chunk *c = p->chunks;

		p->chunks = c->next;
		chunk_free(c);
	}
	target_file_close(p->file);
	addrset_free(&p->sent);
	free(p->large);
	resolver_free(p->res);
	free(p->found);
	free(p->seen.v);
	if (p->own_rt)
		route_close(p->rt);
	memset(p, 0, sizeof(*p));
}
