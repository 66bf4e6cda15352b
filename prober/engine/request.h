/*
 * request.h -- the first data segment of the window test: the bytes that
 * make a server answer, so that its answer can fill the window we offer.
 *
 *   port 80   an HTTP/1.1 GET / (request_http), naming scaleprobe and, with
 *             --contact, who to ask about the probe;
 *   port 443  a TLS ClientHello (request_tls) that a TLS 1.2 or 1.3 server
 *             answers with its first flight (ServerHello, certificate, ...);
 *   other     the bytes of a payload file (read by config/conf_file.c:
 *             nothing here does I/O).
 *
 * Builders write into the caller's buffer and return the length, or 0 when
 * the input is refused or the buffer is too small: nothing is truncated,
 * and no byte a user or a name server supplied reaches the wire unchecked
 * (a CR or LF in a host name would otherwise smuggle headers in).
 */
#ifndef SCALEPROBE_REQUEST_H
#define SCALEPROBE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "probe_settings.h"

/* Room any built request needs (a ClientHello is 517 bytes with the
 * longest name; a GET with the longest host and contact about 1,200). */
#define REQUEST_MAX 2048

/* Longest host name accepted; a contact's limit is the settings'
 * (probe_settings.h), which the configuration checks too. */
#define REQUEST_NAME_MAX 253

/*
 * "GET / HTTP/1.1" with Host (a name as given, an IPv4 literal, or an IPv6
 * literal, which gets its brackets), Accept, "Connection: close" (the
 * server ends its answer with a FIN, which tells the window test the
 * answer is over) and a User-Agent naming scaleprobe.  contact (NULL or
 * "": none) goes into the User-Agent as "(+URL)", the convention crawlers
 * use; a "mailto:ADDRESS" contact also fills the From header (RFC 9110
 * wants a mailbox there, not a URL).  host must be 1..REQUEST_NAME_MAX
 * visible ASCII characters; contact visible ASCII without parentheses or
 * backslash (it sits in a User-Agent comment).
 */
size_t request_http(uint8_t *buf, size_t cap, const char *host, const char *contact);

/*
 * A TLS ClientHello record as a current browser sends it: legacy version
 * TLS 1.2, supported_versions TLS 1.3 and 1.2, the TLS 1.3 suites and the
 * common ECDHE suites, supported_groups x25519 / P-256 / P-384 / P-521, a
 * key_share for x25519, signature_algorithms, ALPN "http/1.1", session
 * ticket, extended master secret, renegotiation_info, status_request, and
 * the RFC 7685 padding that keeps the hello out of 256..511 bytes (a length
 * some load balancers choke on).  sni (NULL or "": none) is sent as
 * server_name unless it is an address literal (RFC 6066 forbids those);
 * a trailing dot is dropped.  The client random, session id and key share
 * are derived from seed with SipHash: random-looking, reproducible in tests.
 * The key share is 32 bytes with the top bit clear (RFC 7748 encoding);
 * nobody can finish the handshake with it, and nobody needs to: the
 * server's first flight is all the window test reads.
 */
size_t request_tls(uint8_t *buf, size_t cap, const char *sni, uint64_t seed);

#endif
