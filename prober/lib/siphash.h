/*
 * siphash.h -- SipHash-2-4 (Aumasson and Bernstein, 2012), 64-bit output,
 * 128-bit key: the keyed hash behind the stateless probe cookies.
 */
#ifndef SCALEPROBE_SIPHASH_H
#define SCALEPROBE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_LEN 16

/* SipHash-2-4 of data[0..len) under key (its 16 bytes read little-endian
 * as k0, k1, as the reference implementation does).  The result is the
 * reference's 8 output bytes read as a little-endian integer. */
uint64_t siphash24(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len);

#endif
