/*
 * export_pcap.h -- the evidence of one exported row as a pcapng file
 * (pcapng.h) and its entry in the manifest: the SYN of the row's scale
 * as sent, each router's quote of it in TTL order, the destination's
 * answer, each packet with a comment saying what it is.  Pure: from the
 * stored evidence bytes (untrusted: evidence_unpack checks them).  Also
 * what tells an earlier export's files: their names' shape and an earlier
 * manifest's list of them.
 */
#ifndef SCALEPROBE_EXPORT_PCAP_H
#define SCALEPROBE_EXPORT_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "history.h"
#include "json.h"
#include "pcapng.h"

/* Room for any evidence: EVIDENCE_PACKED_MAX bytes and the blocks' heads. */
#define EXPORT_PCAP_MAX (64u * 1024u)

/* Writes the row's packets (its scale's variant, r->scale_idx) into b,
 * which has EXPORT_PCAP_MAX bytes of room; *npackets says how many.
 * Returns 0, or -1 with a one-line reason in *why (bad evidence bytes,
 * no packet of that scale). */
int export_pcap_build(const struct history_row *r, const uint8_t *ev, size_t evlen,
    struct pcapng_buf *b, int *npackets, const char **why);

/* The manifest's object for a row (an element of the array the caller
 * opened): file NULL when there was no evidence (why says so). */
void export_pcap_manifest(struct json *j, const struct history_row *r, const char *file,
    int npackets, const char *why);

/* A file name for row number i that no store's text can turn into a path:
 * "0001-198.18.100.11-80-s7.pcapng" (v6 colons become '_'). */
void export_pcap_name(const struct history_row *r, unsigned i, char *buf, size_t len);

/* Whether name has export_pcap_name's shape (digits, '-', the address's
 * characters, '-', a port, "-s", a scale, ".pcapng": never a path, never a
 * hidden file), and its row number in *row: only such a name, listed by
 * an earlier manifest, is a file an earlier export made. */
bool export_pcap_own_name(const char *name, unsigned *row);

/* An earlier manifest.json read from f: the "file" strings of its
 * array's objects (null ones skipped), one at a time, a byte at a time --
 * a manifest of any size costs one name of memory. */
struct export_manifest {
	FILE *f;
	int depth;			/* 1: the array; 2: one of its objects */
	bool started, done, bad;
	bool want_key;			/* after '{' or ',' in an object */
};

void export_pcap_manifest_begin(struct export_manifest *m, FILE *f);
/* The next name into name (len bytes; "" when longer or escaped: no name
 * of ours is).  1; 0 at the array's end; -1 when f is not a JSON array
 * of objects. */
int export_pcap_manifest_next(struct export_manifest *m, char *name, size_t len);

#endif
