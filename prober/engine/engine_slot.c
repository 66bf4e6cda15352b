/*
 * engine_slot.c -- the slots of the paths in flight, beneath every other
 * file of the engine: their lists, the path table (a hash of (family,
 * destination, port), searched once a reply's ISN cookie has proved it
 * answers a probe of ours), the memory they hold, a stage's hand-back of a
 * path to the run loop, and the SYN of a variant.  It calls nothing of
 * the engine's but the cookies.
 */
#include <string.h>

#include "engine_int.h"

/* --- lists --------------------------------------------------------------- */

void
path_slot_list_remove(struct path_slot *s)
{
	struct path_slot_list *l = s->on;

	if (l == NULL)
		return;
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		l->head = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	else
		l->tail = s->prev;
	l->n--;
	s->prev = s->next = NULL;
	s->on = NULL;
}

void
path_slot_list_append(struct path_slot_list *l, struct path_slot *s)
{
	path_slot_list_remove(s);
	s->prev = l->tail;
	s->next = NULL;
	if (l->tail != NULL)
		l->tail->next = s;
	else
		l->head = s;
	l->tail = s;
	l->n++;
	s->on = l;
}

/* --- the path table ------------------------------------------------------ */

static size_t
path_hash(const struct engine *e, const struct addr *dst, uint16_t port)
{
	/* FNV-1a: the key needs no secrecy, replies are validated first */
	uint64_t h = 1469598103934665603ull;
	size_t n = addr_len(dst);

	h = (h ^ dst->family) * 1099511628211ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ dst->bytes[i]) * 1099511628211ull;
	h = (h ^ (port >> 8)) * 1099511628211ull;
	h = (h ^ (port & 0xff)) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32)) & (e->nbuckets - 1);
}

struct path_slot *
engine_path_find(const struct engine *e, const struct addr *dst, uint16_t port,
    int flow)
{
	struct path_slot *s = e->buckets[path_hash(e, dst, port)];

	for (; s != NULL; s = s->hnext)
		if (s->path.port == port && s->path.flow == flow &&
		    addr_equal(&s->path.dst, dst))
			return s;
	return NULL;
}

void
engine_path_unlink(struct engine *e, struct path_slot *s)
{
	struct path_slot **pp = &e->buckets[path_hash(e, &s->path.dst, s->path.port)];

	for (; *pp != NULL; pp = &(*pp)->hnext)
		if (*pp == s) {
			*pp = s->hnext;
			return;
		}
}

void
engine_path_insert(struct engine *e, struct path_slot *s)
{
	size_t b = path_hash(e, &s->path.dst, s->path.port);

	s->hnext = e->buckets[b];
	e->buckets[b] = s;
}

/* --- memory and the stages' hand-back -------------------------------- */

void
engine_mem(struct engine *e, int64_t delta)
{
	e->mem = (uint64_t)((int64_t)e->mem + delta);
	if (e->mem > e->n.mem_peak) {
		e->n.mem_peak = e->mem;
		e->n.mem_peak_paths = e->inflight;
	}
}

void
engine_stage_over(struct engine *e, struct path_slot *s)
{
	struct stage *st;

	if (s->stage >= STAGE_COUNT)
		return;
	st = &e->stages[s->stage];
	if (s->running && st->running > 0)
		st->running--;
	s->running = false;
	s->left = s->stage;
	s->stage = STAGE_MOVING;
	path_slot_list_append(&e->moving, s);
	e->wants_run = true;
}

/* --- the SYNs --------------------------------------------------------- */

uint16_t
engine_variant_sport(const struct engine *e, int flow, int v)
{
	return portplan_port(&e->plan, flow, v, PORTPLAN_FIRST);
}

uint16_t
engine_second_sport(const struct engine *e, int flow, int v)
{
	return portplan_port(&e->plan, flow, v, PORTPLAN_SECOND);
}

/* The IPv6 flow label of a 4-tuple: constant whatever the tag, so ECMP
 * keeps one path for the handshake, every step of the trace, the window
 * test's connections and our RSTs. */
uint32_t
engine_flow_label(const struct engine *e, const struct addr *src, const struct addr *dst,
    uint16_t sport, uint16_t dport)
{
	return cookie_isn(&e->key, src, dst, sport, dport, 0) >> 12;
}

void
engine_make_syn(const struct engine *e, const struct path_slot *s, int v, int tag,
    uint32_t tsval, struct send_syn *syn)
{
	uint16_t sport = engine_variant_sport(e, s->path.flow, v);

	memset(syn, 0, sizeof(*syn));
	syn->variant = v;
	syn->src = &s->path.src;
	syn->dst = &s->path.dst;
	syn->sport = sport;
	syn->dport = s->path.port;
	/* only a trace's tag is a TTL */
	syn->ttl = tag >= 1 && tag <= COOKIE_TRACE_TTL_MAX ? (uint8_t)tag : e->cfg.ttl;
	syn->isn = cookie_isn(&e->key, &s->path.src, &s->path.dst, sport,
	    s->path.port, (unsigned)tag);
	syn->tsval = tsval;
	syn->flow_label = engine_flow_label(e, &s->path.src, &s->path.dst, sport,
	    s->path.port);
}
