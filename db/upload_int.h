/*
 * upload_int.h -- what the upload thread (upload.c) and its rows
 * (upload_rows.c) share: a batch of the local store's path results, read
 * with their run, scales, side findings, hops and evidence and checked
 * cell by cell, then copied into the shared PostgreSQL store's own tables
 * (the ones a daemon writing there directly fills, so its readers need no
 * other path) in one transaction, only the results whose key (vantage,
 * store, run, seq) the shared store had not taken before.
 */
#ifndef SCALEPROBE_UPLOAD_INT_H
#define SCALEPROBE_UPLOAD_INT_H

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A store's identity (schema v9's store_identity): UPLOAD_STORE_LEN
 * lowercase hex digits. */
#define UPLOAD_STORE_LEN	32

/* Pure: whether s is a store's identity, nothing before or after it. */
bool upload_store_ok(const char *s);

/* A batch: its results and their rows, held until the next read. */
struct ubatch *ubatch_new(void);
void ubatch_free(struct ubatch *b);

/* Up to max results past cursor read from db into b (what it held
 * before is dropped): their number, or -1 with one line in err.  *last:
 * the last id read, results passed over (a cell that is not what the
 * schema says) included. */
int ubatch_read(struct ubatch *b, sqlite3 *db, int64_t cursor, int max, int64_t *last,
    char *err, size_t errlen);

/* b's results sent to pg under the store's identity in one transaction:
 * 0 with *stored the results it had not taken before, or -1 with the
 * server's reason in err (nothing of the batch stored). */
int ubatch_send(struct ubatch *b, PGconn *pg, const char *store, uint64_t *stored, char *err,
    size_t errlen);

#endif
