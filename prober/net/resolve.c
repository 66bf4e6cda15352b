/*
 * resolve.c -- evdns behind a queue: at most max_pending getaddrinfo
 * requests at once, the rest waiting in order, each answer reduced to a
 * list of distinct addresses (resolve.h).
 */
#include <sys/socket.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "resolve.h"

#define RESOLVE_DEFAULT_PENDING 64	/* names: 128 queries (A, AAAA) in
					   flight, what a resolver takes without
					   dropping a burst */

struct rquery {
	struct resolver *r;
	const char *name;
	void *tag;
	resolver_cb cb;
	void *arg;
	struct evdns_getaddrinfo_request *req;	/* NULL once answered */
	struct rquery *next;			/* queue, or the running list */
	struct rquery *prev;
	bool running;
};

struct resolver {
	struct evdns_base *dns;
	struct event *kick;			/* starts queued queries */
	struct rquery *qhead, *qtail;		/* waiting */
	struct rquery *running;			/* started, not answered */
	size_t nqueued, nrunning, max_pending;
	struct rquery *starting;		/* inside evdns_getaddrinfo */
	bool started_done;			/* ... and answered there */
	bool closing;
	bool detached;				/* freed by its last answer */
	struct event_base *base;
};

static void resolve_start(struct resolver *r);
static void resolver_destroy(struct resolver *r);

/* The last answer of a detached resolver frees it from the loop, outside
 * evdns's callback (which goes on using its request after we return). */
static void
resolve_destroy_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	resolver_destroy(arg);
}

static void
resolve_unlink(struct resolver *r, struct rquery *q)
{
	if (q->prev != NULL)
		q->prev->next = q->next;
	else
		r->running = q->next;
	if (q->next != NULL)
		q->next->prev = q->prev;
	q->next = q->prev = NULL;
	r->nrunning--;
}

static void
resolve_answer(int result, struct evutil_addrinfo *res, void *arg)
{
	struct rquery *q = arg;
	struct resolver *r = q->r;
	struct addr addrs[RESOLVE_MAX_ADDRS];
	char why[160];
	size_t n = 0;

	q->req = NULL;
	if (q == r->starting)
		r->started_done = true;
	resolve_unlink(r, q);
	if (result == EVUTIL_EAI_CANCEL || r->closing) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		free(q);
		if (r->detached && r->running == NULL &&
		    event_base_once(r->base, -1, EV_TIMEOUT, resolve_destroy_cb, r, NULL) != 0)
			log_debug("resolver: kept to the end (no event for its release)");
		return;
	}
	for (struct evutil_addrinfo *ai = res; ai != NULL && n < RESOLVE_MAX_ADDRS;
	    ai = ai->ai_next) {
		struct addr a;
		size_t i;

		memset(&a, 0, sizeof(a));
		if (ai->ai_family == AF_INET && ai->ai_addrlen >= sizeof(struct sockaddr_in)) {
			struct sockaddr_in sin;
			memcpy(&sin, ai->ai_addr, sizeof(sin));
			a.family = ADDR_V4;
			memcpy(a.bytes, &sin.sin_addr, 4);
		} else if (ai->ai_family == AF_INET6 &&
		    ai->ai_addrlen >= sizeof(struct sockaddr_in6)) {
			struct sockaddr_in6 sin6;
			memcpy(&sin6, ai->ai_addr, sizeof(sin6));
			a.family = ADDR_V6;
			memcpy(a.bytes, &sin6.sin6_addr, 16);
		} else
			continue;
		for (i = 0; i < n; i++)
			if (addr_equal(&addrs[i], &a))
				break;
		if (i == n)
			addrs[n++] = a;
	}
	if (res != NULL)
		evutil_freeaddrinfo(res);
	if (n == 0)
		snprintf(why, sizeof(why), "%s", result != 0 ? evutil_gai_strerror(result) :
		    "no address");
	q->cb(q->arg, q->tag, addrs, n, n == 0 ? why : NULL);
	free(q);
	/* room for the next one: started from the loop, not from here (the
	 * callback may be running inside evdns_getaddrinfo) */
	if (r->nqueued > 0)
		event_active(r->kick, EV_TIMEOUT, 0);
}

static void
resolve_start(struct resolver *r)
{
	while (r->qhead != NULL && r->nrunning < r->max_pending && !r->closing) {
		struct rquery *q = r->qhead;
		struct evdns_getaddrinfo_request *req;
		struct evutil_addrinfo hints;

		r->qhead = q->next;
		if (r->qhead == NULL)
			r->qtail = NULL;
		r->nqueued--;
		q->next = r->running;
		q->prev = NULL;
		if (r->running != NULL)
			r->running->prev = q;
		r->running = q;
		r->nrunning++;
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		/* answered at once (the hosts file, an error), q is freed
		 * before this returns */
		r->starting = q;
		r->started_done = false;
		req = evdns_getaddrinfo(r->dns, q->name, NULL, &hints, resolve_answer, q);
		if (!r->started_done)
			q->req = req;
		r->starting = NULL;
	}
}

static void
resolve_kick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	resolve_start(arg);
}

/* evdns's own messages ("nameserver ... has failed") are for -v: the
 * name's one line says what matters. */
static void
resolve_log(int severity, const char *msg)
{
	(void)severity;
	log_debug("evdns: %s", msg);
}

struct resolver *
resolver_new(struct event_base *base, const struct resolver_config *c, char *err,
    size_t errlen)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	const char *conf = c->resolv_conf != NULL ? c->resolv_conf : "/etc/resolv.conf";
	int flags = DNS_OPTION_SEARCH | DNS_OPTION_MISC;
	int rc;

	r->base = base;
	r->max_pending = c->max_pending > 0 ? c->max_pending : RESOLVE_DEFAULT_PENDING;
	evdns_set_log_fn(resolve_log);
	if ((r->dns = evdns_base_new(base, 0)) == NULL ||
	    (r->kick = event_new(base, -1, 0, resolve_kick, r)) == NULL) {
		snprintf(err, errlen, "resolver: cannot set up evdns");
		goto fail;
	}
	{
		char n[32];

		/* evdns's own cap on queries in flight (64) would queue ours */
		snprintf(n, sizeof(n), "%zu", r->max_pending * 2);
		evdns_base_set_option(r->dns, "max-inflight:", n);
		/* three timeouts declare a nameserver down and fail every
		 * name queued after: among thousands of queries, a few lost
		 * ones are no sign of a dead server */
		evdns_base_set_option(r->dns, "max-timeouts:", "255");
	}
	if (c->nameserver == NULL)
		flags |= DNS_OPTION_NAMESERVERS;
	/* a missing resolv.conf (1) or one without a nameserver (6) is no
	 * error: glibc asks 127.0.0.1 then, and so does evdns */
	rc = evdns_base_resolv_conf_parse(r->dns, flags, conf);
	if (rc != 0 && rc != 1 && rc != 6 && c->nameserver == NULL) {
		snprintf(err, errlen, "resolver: %s: cannot be parsed", conf);
		goto fail;
	}
	if (c->nameserver != NULL && evdns_base_nameserver_ip_add(r->dns, c->nameserver) != 0) {
		snprintf(err, errlen, "resolver: nameserver '%s' is not ADDR or ADDR:PORT",
		    c->nameserver);
		goto fail;
	}
	/* evdns reads no hosts file when given none: name it.  A missing
	 * default one is no error (only localhost is known then). */
	if (evdns_base_load_hosts(r->dns, c->hosts != NULL ? c->hosts : "/etc/hosts") != 0 &&
	    c->hosts != NULL) {
		snprintf(err, errlen, "resolver: %s: cannot be read", c->hosts);
		goto fail;
	}
	return r;
fail:
	resolver_free(r);
	return NULL;
}

void
resolver_query(struct resolver *r, const char *name, void *tag, resolver_cb cb, void *arg)
{
	struct rquery *q = xcalloc(1, sizeof(*q));

	q->r = r;
	q->name = name;
	q->tag = tag;
	q->cb = cb;
	q->arg = arg;
	if (r->qtail != NULL)
		r->qtail->next = q;
	else
		r->qhead = q;
	r->qtail = q;
	r->nqueued++;
	event_active(r->kick, EV_TIMEOUT, 0);
}

size_t
resolver_pending(const struct resolver *r)
{
	return r->nqueued + r->nrunning;
}

static void
resolver_destroy(struct resolver *r)
{
	if (r->kick != NULL)
		event_free(r->kick);
	if (r->dns != NULL)
		evdns_base_free(r->dns, 0);
	free(r);
}

/* Queries in flight are cancelled, but evdns answers a cancel through the
 * event loop, never from the cancel itself: waiting for those answers here
 * would spin for ever when the loop has stopped (a daemon told to stop
 * while names resolve).  So a resolver with queries in flight is detached
 * instead: each answer frees its query, the last one the resolver; if the
 * loop never runs again (the process is ending), they go with it. */
void
resolver_free(struct resolver *r)
{
	struct rquery *q, *next;

	if (r == NULL)
		return;
	r->closing = true;
	for (q = r->qhead; q != NULL; q = next) {
		next = q->next;
		free(q);
	}
	r->qhead = r->qtail = NULL;
	r->nqueued = 0;
	for (q = r->running; q != NULL; q = next) {
		next = q->next;
		if (q->req != NULL)
			evdns_getaddrinfo_cancel(q->req);
		else {
			resolve_unlink(r, q);
			free(q);
		}
	}
	if (r->running != NULL) {
		r->detached = true;
		return;
	}
	resolver_destroy(r);
}
