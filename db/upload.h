/*
 * upload.h -- a vantage's results shipped to the shared PostgreSQL store
 * (scaleprobed's "upload URI"): a thread of its own reads what the local
 * SQLite store committed past its cursor (upload_cursor, schema v6) and
 * inserts it there in batches, each row keyed by (vantage, run, path
 * result), so a batch sent twice is stored once.  Probing never waits on
 * it; while the server is unreachable it tries again after a backoff
 * (1 s doubled up to UPLOAD_BACKOFF_MAX_S) and the local store keeps
 * every result it has not taken (store_prune.c).
 */
#ifndef SCALEPROBE_UPLOAD_H
#define SCALEPROBE_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* results per batch: the keys' INSERT takes 5 parameters each, under
 * PostgreSQL's 65,535 */
#define UPLOAD_BATCH		500
#define UPLOAD_BACKOFF_MAX_S	60

struct upload;

struct upload_figures {
	uint64_t backlog;		/* committed results not yet taken */
	int64_t last_ok_ns;		/* the last batch the server took; 0:
					   never (as the cursor says) */
	uint64_t uploaded;		/* results sent since the start */
	bool failing;			/* the last attempt failed */
	char error[384];		/* its one line, naming upload_where(uri) */
};

/* The thread started on the SQLite store at file (opened here, a
 * connection of its own) for the server at uri.  NULL with one line in
 * err when file cannot be opened or the thread not made; an unreachable
 * server is not an error here (the thread tries again). */
struct upload *upload_start(const char *file, const char *uri, char *err, size_t errlen);

/* The thread stopped: it first sends what is committed, for at most
 * drain_s seconds, then its connections are closed and u freed; last
 * (unless NULL) gets the figures it ended with, so that a failure of the
 * stop's own attempt can still be told. */
void upload_stop(struct upload *u, unsigned drain_s, struct upload_figures *last);

/* Asks the thread to look for new results now (after a commit). */
void upload_kick(struct upload *u);

void upload_get_figures(struct upload *u, struct upload_figures *f);

/* Pure: the wait after n failures in a row (n >= 1), in seconds: 1, 2,
 * 4 ... up to UPLOAD_BACKOFF_MAX_S. */
unsigned upload_backoff_s(unsigned n);

/* Pure: whether the upload is stale: results wait (backlog > 0) and the
 * last successful upload, or since when the thread runs if none was
 * after it, is more than after_s seconds before now. */
bool upload_is_stale(uint64_t backlog, int64_t last_ok_ns, int64_t since_ns, int64_t now_ns,
    uint32_t after_s);

/* Pure: s copied into out (outlen >= 1) with every byte that is not
 * printable ASCII replaced by '?', cut at outlen - 1: what the server is
 * sent of a local text (a store's bytes are hostile, and one invalid
 * UTF-8 sequence would refuse the whole batch there). */
void upload_clean_text(const char *s, char *out, size_t outlen);

/* Pure: uri as the upload's messages name it, into out (cut at outlen -
 * 1): store_where_safe's (no password) without the parameters naming the
 * TLS certificate's and key's files or the key's passphrase (sslcert,
 * sslkey, sslrootcert, sslcrl, sslcrldir, sslpassword, passfile), so the
 * server and libpq's reason fit one line and no secret is logged. */
void upload_where(const char *uri, char *out, size_t outlen);

/* The daemon started without "upload" on the SQLite store at file: its
 * cursor dropped (upload_forget.c), so retention covers every result
 * again.  1 when there was one (*held: the results it had not yet seen
 * taken), 0 when none, -1 with one line in err. */
int upload_forget(const char *file, int64_t *held, char *err, size_t errlen);

#endif
