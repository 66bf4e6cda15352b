/*
 * guard.c -- the nftables table that keeps the local kernel from answering
 * our SYN-ACKs with RSTs: "table inet scaleprobe-PID-RANDOM", one prerouting
 * chain at priority -300 (before conntrack) dropping TCP addressed to this
 * host (fib daddr type local: a router or NAT gateway forwards traffic to
 * the same ports untouched) on the process's block of probe source ports.
 * Talks to the kernel through libnftables, never by forking nft.
 *
 * The table carries the owner flag (Linux 5.12 and later): it belongs to
 * the context's netlink socket, so the kernel removes it when the process
 * ends however it ends (a signal, a crash, kill -9), and no other process
 * can delete it.  The random part of its name keeps two processes of one
 * PID in different PID namespaces that share a network namespace
 * (containers with host networking) apart.  Where the kernel refuses the
 * flag, the table is made without it and, as before, tables whose process
 * is gone are removed by the next run (only unowned ones, and only those
 * whose PID this PID namespace can see to be gone).
 *
 * Choosing a block without a lock: every live scaleprobe-* table is read
 * back, a free block is claimed by creating our table, then the tables are
 * read again.  Whoever sees another live table on its block gives it up and
 * tries another; of two racing processes at least one sees the other (each
 * reads after its own create), so two never keep the same block.
 */
#include <nftables/libnftables.h>

#include <sys/random.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"

#define GUARD_PREFIX		"scaleprobe-"
#define GUARD_NAMELEN		40
#define GUARD_NBLOCKS		(65536 / GUARD_BLOCK_PORTS)
#define GUARD_FD_SCAN		4096
#define GUARD_ATTEMPTS		16	/* lost races before giving up */
#define GUARD_PORT_RANGE	"/proc/sys/net/ipv4/ip_local_port_range"

struct guard {
	struct nft_ctx	*nft;
	char		 name[GUARD_NAMELEN];	/* scaleprobe-PID-RANDOM */
	uint16_t	 port_lo;
	unsigned	 nblocks;		/* consecutive blocks from port_lo */
	bool		 owned;			/* the kernel took the owner flag */
};

/* Runs one nft command buffer (one transaction).  On failure, the first
 * line of nft's error in err. */
static int
guard_run(struct nft_ctx *nft, const char *cmd, char *err, size_t errlen)
{
	const char *e;
	size_t n;

	if (nft_run_cmd_from_buffer(nft, cmd) == 0)
		return 0;
	if (err != NULL && errlen > 0) {
		e = nft_ctx_get_error_buffer(nft);
		if (e == NULL || *e == '\0')
			e = "nft command failed";
		n = strcspn(e, "\n");
		snprintf(err, errlen, "nftables: %.*s", (int)n, e);
	}
	return -1;
}

/* The output of a list command, copied: nft reuses its buffer.  NULL
 * with nft's reason in err (when err is not NULL). */
static char *
guard_list(struct nft_ctx *nft, const char *cmd, char *err, size_t errlen)
{
	const char *out;

	if (guard_run(nft, cmd, err, errlen) != 0)
		return NULL;
	out = nft_ctx_get_output_buffer(nft);
	return strdup(out != NULL ? out : "");
}

/* The PID in a table name "scaleprobe-PID[-RANDOM]", or 0 if it is not
 * ours. */
static long
guard_table_pid(const char *name)
{
	const char *p = name + strlen(GUARD_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, GUARD_PREFIX, strlen(GUARD_PREFIX)) != 0)
		return 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '-') || pid <= 0)
		return 0;
	return pid;
}

static int
guard_pid_alive(long pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	return access(path, F_OK) == 0;
}

/* Marks the blocks a table's "tcp dport A-B" rules cover as taken; 1 when
 * the table is owned by its process (the kernel removes it with the
 * process: never ours to remove), 0 when not, -1 when it is gone. */
static int
guard_mark_table(struct nft_ctx *nft, const char *name, uint8_t *taken)
{
	char cmd[128], *out, *p;
	unsigned a, b, blk;
	int owned;

	snprintf(cmd, sizeof(cmd), "list table inet %s", name);
	if ((out = guard_list(nft, cmd, NULL, 0)) == NULL)
		return -1;	/* gone meanwhile: nothing to avoid */
	owned = strstr(out, "flags owner") != NULL;
	for (p = out; (p = strstr(p, "dport ")) != NULL; p++) {
		if (sscanf(p, "dport %u-%u", &a, &b) != 2) {
			if (sscanf(p, "dport %u", &a) != 1)
				continue;
			b = a;
		}
		if (a > 65535 || b > 65535 || a > b)
			continue;
		for (blk = a / GUARD_BLOCK_PORTS; blk <= b / GUARD_BLOCK_PORTS; blk++)
			taken[blk] = 1;
	}
	free(out);
	return owned;
}

/*
 * Walks the inet tables: removes scaleprobe tables whose process is gone
 * (remove != 0), marks the blocks of live ones other than self as taken.
 * Returns 0, or -1 with a reason in err when the tables cannot be listed.
 */
static int
guard_scan(struct guard *g, uint8_t *taken, int remove, char *err, size_t errlen)
{
	char *out, *line, *save = NULL, name[GUARD_NAMELEN + 1], cmd[128];
	int can_judge = access("/proc/self", F_OK) == 0;
	long pid;

	if ((out = guard_list(g->nft, "list tables inet", err, errlen)) == NULL)
		return -1;
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "table inet %32s", name) != 1)
			continue;
		if ((pid = guard_table_pid(name)) == 0 || strcmp(name, g->name) == 0)
			continue;
		/* an owned table lives exactly as long as its process; without
		 * /proc every process looks dead: remove nothing */
		if (guard_mark_table(g->nft, name, taken) == 0 && can_judge &&
		    !guard_pid_alive(pid)) {
			if (remove) {
				snprintf(cmd, sizeof(cmd), "delete table inet %s", name);
				/* another process may be removing it too */
				(void)guard_run(g->nft, cmd, NULL, 0);
			}
		}
	}
	free(out);
	return 0;
}

/* Marks blocks holding a port some local TCP socket is bound to: our drop
 * rule would cut that socket off.  Lines of /proc/net/tcp{,6} read
 * "N: ADDR:PORT REMADDR:PORT ...", ports in hex. */
static void
guard_mark_sockets(const char *path, uint8_t *taken)
{
	char line[512], *colon;
	unsigned long port;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* the local address is the second field; its port follows
		 * its last ':' */
		char *p = strchr(line, ':');
		if (p == NULL)
			continue;
		p++;
		while (*p == ' ')
			p++;
		colon = strchr(p, ':');
		if (colon == NULL || colon - p < 8)
			continue;
		port = strtoul(colon + 1, NULL, 16);
		if (port < 65536)
			taken[port / GUARD_BLOCK_PORTS] = 1;
	}
	fclose(f);
}

/* The ephemeral range of this network namespace. */
static int
guard_local_range(unsigned *lo, unsigned *hi, char *err, size_t errlen)
{
	FILE *f;
	int n;

	if ((f = fopen(GUARD_PORT_RANGE, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", GUARD_PORT_RANGE, strerror(errno));
		return -1;
	}
	n = fscanf(f, "%u %u", lo, hi);
	fclose(f);
	if (n != 2 || *lo > *hi || *hi > 65535) {
		snprintf(err, errlen, "%s: unexpected contents", GUARD_PORT_RANGE);
		return -1;
	}
	return 0;
}

/* A context whose netlink socket is close-on-exec.  libnftables opens it
 * without the flag and never hands it out: every descriptor that appears
 * across nft_ctx_new gets it (another thread's meanwhile too, harmless). */
static struct nft_ctx *
guard_nft_new(void)
{
	uint8_t before[GUARD_FD_SCAN / 8];
	struct nft_ctx *nft;

	memset(before, 0, sizeof(before));
	for (int fd = 0; fd < GUARD_FD_SCAN; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			before[fd / 8] |= (uint8_t)(1u << (fd % 8));
	if ((nft = nft_ctx_new(NFT_CTX_DEFAULT)) == NULL)
		return NULL;
	for (int fd = 0; fd < GUARD_FD_SCAN; fd++) {
		int fl;

		if (!(before[fd / 8] & (1u << (fd % 8))) && (fl = fcntl(fd, F_GETFD)) != -1)
			(void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
	return nft;
}

/* Creates our table on block blk, in one transaction: owned by this
 * process where the kernel knows the flag, else without it. */
static int
guard_create(struct guard *g, unsigned blk, char *err, size_t errlen)
{
	char cmd[640];
	unsigned lo = blk * GUARD_BLOCK_PORTS;
	unsigned hi = lo + g->nblocks * GUARD_BLOCK_PORTS - 1;

	for (int owned = 1; owned >= 0; owned--) {
		snprintf(cmd, sizeof(cmd),
		    "add table inet %s %s\n"
		    "add chain inet %s prerouting { type filter hook prerouting "
		    "priority -300; policy accept; }\n"
		    "add rule inet %s prerouting fib daddr type local "
		    "tcp dport %u-%u drop\n",
		    g->name, owned ? "{ flags owner; }" : "", g->name, g->name,
		    lo, hi);
		if (guard_run(g->nft, cmd, owned ? NULL : err, errlen) == 0) {
			g->owned = owned;
			return 0;
		}
	}
	return -1;
}

static void
guard_delete(struct guard *g)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "delete table inet %s", g->name);
	if (guard_run(g->nft, cmd, NULL, 0) == 0)
		return;
	/* a context that failed mid-batch may hold stale state: retry once
	 * on a fresh one */
	nft_ctx_free(g->nft);
	g->nft = guard_nft_new();
	if (g->nft == NULL)
		return;
	nft_ctx_buffer_output(g->nft);
	nft_ctx_buffer_error(g->nft);
	(void)guard_run(g->nft, cmd, NULL, 0);
}

/* Whether blocks [blk, blk + nblocks) are all free. */
static bool
guard_free_run(const uint8_t *taken, unsigned blk, unsigned nblocks)
{
	for (unsigned i = 0; i < nblocks; i++)
		if (taken[blk + i])
			return false;
	return true;
}

/* The first block at or after start (wrapping within [first, last - nblocks
 * + 1]) that begins nblocks free ones, or -1. */
static int
guard_pick(const uint8_t *taken, unsigned first, unsigned last, unsigned start,
    unsigned nblocks)
{
	unsigned n = last - first + 2 - nblocks, i, blk;

	for (i = 0; i < n; i++) {
		blk = first + (start - first + i) % n;
		if (guard_free_run(taken, blk, nblocks))
			return (int)blk;
	}
	return -1;
}

struct guard *
guard_open(unsigned nblocks, char *err, size_t errlen)
{
	uint8_t taken[GUARD_NBLOCKS], base[GUARD_NBLOCKS];
	unsigned lo, hi, first, last, start, attempt;
	struct guard *g;
	int blk;

	if (guard_local_range(&lo, &hi, err, errlen) == -1)
		return NULL;
	first = (hi + GUARD_BLOCK_PORTS) / GUARD_BLOCK_PORTS;	/* above hi */
	last = GUARD_NBLOCKS - 1;
	if (nblocks < 1 || first > last || last - first + 1 < nblocks) {
		snprintf(err, errlen, "no room above ip_local_port_range (%u-%u) "
		    "for %u probe ports", lo, hi, nblocks * GUARD_BLOCK_PORTS);
		return NULL;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL) {
		snprintf(err, errlen, "guard: %s", strerror(errno));
		return NULL;
	}
	uint32_t rnd;

	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(err, errlen, "guard: getrandom: %s", strerror(errno));
		free(g);
		return NULL;
	}
	snprintf(g->name, sizeof(g->name), GUARD_PREFIX "%ld-%08x", (long)getpid(), rnd);
	if ((g->nft = guard_nft_new()) == NULL) {
		snprintf(err, errlen, "nftables: cannot create a context");
		free(g);
		return NULL;
	}
	nft_ctx_buffer_output(g->nft);
	nft_ctx_buffer_error(g->nft);
	g->nblocks = nblocks;

	memset(base, 0, sizeof(base));
	guard_mark_sockets("/proc/net/tcp", base);
	guard_mark_sockets("/proc/net/tcp6", base);
	start = first;
	for (attempt = 0; attempt < GUARD_ATTEMPTS; attempt++) {
		memcpy(taken, base, sizeof(taken));
		if (guard_scan(g, taken, attempt == 0, err, errlen) == -1)
			goto fail;
		if ((blk = guard_pick(taken, first, last, start, nblocks)) == -1) {
			snprintf(err, errlen, "no free range of %u probe ports above "
			    "ip_local_port_range (%u-%u): the blocks are held by live "
			    "scaleprobes or local sockets", nblocks * GUARD_BLOCK_PORTS,
			    lo, hi);
			goto fail;
		}
		if (guard_create(g, (unsigned)blk, err, errlen) == -1)
			goto fail;
		/* read back: did another process claim the block meanwhile? */
		memset(taken, 0, sizeof(taken));
		if (guard_scan(g, taken, 0, NULL, 0) == 0 &&
		    guard_free_run(taken, (unsigned)blk, nblocks)) {
			g->port_lo = (uint16_t)(blk * GUARD_BLOCK_PORTS);
			return g;
		}
		guard_delete(g);
		if (g->nft == NULL) {
			snprintf(err, errlen, "nftables: cannot create a context");
			free(g);
			return NULL;
		}
		/* spread the retries of racing processes apart */
		base[blk] = 1;
		start = first + (unsigned)(getpid() + attempt * 7919) %
		    (last - first + 2 - nblocks);
	}
	snprintf(err, errlen, "could not claim a block of probe ports after %d tries",
	    GUARD_ATTEMPTS);
fail:
	nft_ctx_free(g->nft);
	free(g);
	return NULL;
}

uint16_t
guard_port_lo(const struct guard *g)
{
	return g->port_lo;
}

unsigned
guard_ports(const struct guard *g)
{
	return g->nblocks * GUARD_BLOCK_PORTS;
}

void
guard_close(struct guard *g)
{
	if (g == NULL)
		return;
	if (g->nft != NULL) {
		guard_delete(g);
		if (g->nft != NULL)
			nft_ctx_free(g->nft);
	}
	free(g);
}

const char *
guard_name(const struct guard *g)
{
	return g->name;
}
