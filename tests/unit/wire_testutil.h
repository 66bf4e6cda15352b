/*
 * wire_testutil.h -- what the test_wire_* programs share: a writable copy
 * of a captured sample to mutate, header fix-ups so a mutation tests one
 * thing only, and the case / truncation counters they print at the end.
 */
#ifndef WIRE_TESTUTIL_H
#define WIRE_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "samples.h"

#define WT_BUF	2048

extern unsigned long	wt_cases;	/* table rows and hand-made cases */
extern unsigned long	wt_truncations;	/* truncated inputs parsed */

/* Copy sample name into buf (WT_BUF bytes); its length.  Fails the
 * test if there is no such sample. */
size_t	wt_copy(uint8_t *buf, const char *name);

/* Recompute the IPv4 header checksum of the header at ip. */
void	wt_fix_ip4_csum(uint8_t *ip);

/* Set the IP datagram at ip to len bytes: IPv4 total length (and header
 * checksum) or IPv6 payload length. */
void	wt_set_ip_len(uint8_t *ip, size_t len);

/* cmocka group teardown: print "# parser cases: N, truncations tried: M". */
int	wt_report(void **state);

#endif /* WIRE_TESTUTIL_H */
