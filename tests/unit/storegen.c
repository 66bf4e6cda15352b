/*
 * storegen.c -- synthetic path results (storegen.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storegen.h"

static void
synack(struct variant_obs *o, int scale, int ws)
{
	memset(o, 0, sizeof(*o));
	o->scale = scale;
	o->reply = REPLY_SYNACK;
	o->attempts = 1;
	o->rtt_us = 1500;
	o->sa.present = true;
	o->sa.wscale = ws;
	o->sa.mss = 1460;
	o->sa.sack = true;
	o->sa.ts = (scale & 1) == 0;
	o->sa.window = 65160;
	o->sa.ttl = 59;
}

static void
v4(struct addr *a, unsigned a2, unsigned a3, unsigned a4)
{
	memset(a, 0, sizeof(*a));
	a->family = ADDR_V4;
	a->bytes[0] = 198;
	a->bytes[1] = (uint8_t)a2;
	a->bytes[2] = (uint8_t)a3;
	a->bytes[3] = (uint8_t)a4;
}

void
storegen_make(struct storegen *g, unsigned i, int64_t time_s, bool with_evidence)
{
	static const int scales[3] = { 0, 7, 14 };
	struct path_result *r = &g->res;
	bool rewritten = i % 4 == 1, closed = i % 4 == 2, v6 = i % 8 == 3;
	uint8_t pkt[80];

	memset(r, 0, sizeof(*r));
	memset(g->trace, 0, sizeof(g->trace));
	g->ev = NULL;
	snprintf(g->target, sizeof(g->target), "host%u.example", i % 50000);
	r->target = g->target;
	if (v6) {
		r->dst.family = ADDR_V6;
		r->dst.bytes[0] = 0xfd;
		r->dst.bytes[14] = (uint8_t)(i >> 8);
		r->dst.bytes[15] = (uint8_t)i;
	} else
		v4(&r->dst, 19, (i >> 8) & 0xff, i & 0xff);
	v4(&r->src, 18, 1, 1);
	r->port = i % 3 == 0 ? 443 : 80;
	r->time.tv_sec = time_s;
	r->time.tv_nsec = (long)(i % 1000) * 1000000 + 123456;
	if (closed) {
		memset(&r->control, 0, sizeof(r->control));
		r->control.scale = -1;
		r->control.reply = REPLY_RST;
		r->control.sa.wscale = r->control.sa.mss = -1;
	} else
		synack(&r->control, -1, 7);
	r->nscales = 3;
	for (int k = 0; k < 3; k++) {
		struct scale_verdict *v = &r->verdicts[k];

		if (closed) {
			r->scales[k] = r->control;
			r->scales[k].scale = scales[k];
			v->verdict = VERDICT_CLOSED;
			snprintf(v->reason, sizeof(v->reason), "the server answered RST");
			v->scale_quoted = -2;
			continue;
		}
		synack(&r->scales[k], scales[k], 7);
		r->window[k].ran = true;
		r->window[k].scale_effective = rewritten ? 0 : scales[k];
		r->window[k].scale_effective_min = -1;
		r->window[k].flight_bytes = 64000 + k;
		v->verdict = rewritten && scales[k] != 0 ? VERDICT_REWRITTEN : VERDICT_OK;
		snprintf(v->reason, sizeof(v->reason), "%s, \"quoted\" at scale %d",
		    rewritten ? "window scale changed to 0" : "as sent", scales[k]);
		v->scale_quoted = rewritten ? 0 : -2;
		if (rewritten) {
			v->hop.present = true;
			v->hop.index = 3;
			v4(&v->hop.address, 18, 3, 2);
			v->hop.last_clean_index = 2;
			v4(&v->hop.last_clean_address, 18, 2, 2);
			v->nfindings = 1;
			v->findings[0].kind = FINDING_MSS_CLAMPED;
			snprintf(v->findings[0].detail, sizeof(v->findings[0].detail), "1200");
			v->findings[0].hop_index = -1;
		}
	}
	if (!rewritten)
		return;
	for (int v = 0; v <= 3; v++) {
		struct trace_obs *t = &g->trace[v];

		t->ran = true;
		t->nttl = 6;
		t->dest_ttl = 6;
		for (int k = 1; k <= 5; k++) {
			t->hop[k].quote = k == 4 ? QUOTE_NONE : QUOTE_FULL;
			v4(&t->hop[k].from, 18, (unsigned)k, 2);
			t->hop[k].rtt_us = 100u * (unsigned)k + 7;
			t->hop[k].rfc4884 = k == 5;
			t->hop[k].ws = k < 3 ? WS_INTACT : WS_CHANGED;
			t->hop[k].ws_value = k < 3 ? 7 : 0;
		}
		r->trace[v] = t;
	}
	if (!with_evidence)
		return;
	/* about what a lab trace keeps: a SYN, five quotes and a SYN-ACK per
	 * variant */
	for (int v = -1; v < 3; v++) {
		memset(pkt, (int)(i + (unsigned)v), sizeof(pkt));
		evidence_add(&g->ev, v, 0, EVIDENCE_SYN, "tag=0", pkt, 60);
		evidence_add(&g->ev, v, 0, EVIDENCE_REPLY, NULL, pkt, 60);
		for (int k = 1; k <= 5; k++)
			evidence_add(&g->ev, v, k, EVIDENCE_QUOTE, NULL, pkt, 68);
	}
	r->evidence = g->ev;
}

void
storegen_free(struct storegen *g)
{
	evidence_free(&g->ev);
}

int
storegen_scratch(char *dir, size_t len, const char *name)
{
	if ((size_t)snprintf(dir, len, "/tmp/%s.XXXXXX", name) >= len)
		return -1;
	return mkdtemp(dir) != NULL ? 0 : -1;
}

int
storegen_scratch_remove(const char *dir)
{
	char cmd[256];

	if ((size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}
