/*
 * fdcheck.c -- the daemon's descriptor budget (fdbudget.h) against the
 * limit it runs under: read at start (and at a reload, which may add
 * targets by name), refused with one line when too low.  setrlimit is no
 * way out: the unit's seccomp filter forbids it (@resources), so the
 * limit is the unit's LimitNOFILE=.
 */
#include <sys/resource.h>

#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "fdbudget.h"
#include "log.h"

/* The nameserver lines of resolv.conf (evdns opens a socket for each). */
static size_t
resolv_nameservers(void)
{
	FILE *f = fopen("/etc/resolv.conf", "re");
	char line[512];
	size_t n = 0;

	if (f == NULL)
		return 1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "nameserver", 10) == 0 && (line[10] == ' ' ||
		    line[10] == '\t'))
			n++;
	fclose(f);
	return n > 0 ? n : 1;
}

int
daemon_check_fds(struct daemon *d, const struct config_gen *config_gen, bool metrics)
{
	struct fdb_config c;
	struct fdb_need n;
	struct rlimit rl;
	char msg[400];

	memset(&c, 0, sizeof(c));
	c.max_inflight = d->unit_limit;
	for (size_t gi = 0; gi < config_gen->ng; gi++)
		for (size_t i = 0; i < config_gen->g[gi].n; i++) {
			const struct targets *t = &config_gen->g[gi].u[i].t;

			c.units++;
			for (size_t k = 0; k < t->n; k++)
				if (t->v[k].kind == TARGET_NAME) {
					c.named_units++;
					break;
				}
		}
	c.nameservers = c.named_units > 0 ? resolv_nameservers() : 1;
	c.one_interface = config_gen->c.interface != NULL;
	c.max_interfaces = PATHS_MAX_IFACES;
	c.metrics_conns = metrics ? FDB_METRICS : 0;
	c.control = config_gen->c.control != NULL;
	c.alert_command = config_gen->c.alert_command != NULL;
	fdbudget(&c, &n);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		log_warn("getrlimit");
		return -1;
	}
	if (fdbudget_check(&c, &n, rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX :
	    (uint64_t)rl.rlim_cur, msg, sizeof(msg)) != 0) {
		log_warnx("%s", msg);
		return -1;
	}
	log_debug("descriptors: up to %zu of %llu (%zu fixed, %zu captures, %zu resolvers, "
	    "%zu metrics)", n.total, (unsigned long long)rl.rlim_cur, n.fixed, n.captures,
	    n.resolvers, n.metrics);
	return 0;
}
