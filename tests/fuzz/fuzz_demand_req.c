/*
 * fuzz_demand_req.c -- libFuzzer harness for the control socket's
 * on-demand requests (demand_req_parse, demand_spec_has_port).  Input:
 * byte 0 picks the size limit (0: DEMAND_REQ_MAX, else 1 to 255 bytes, so
 * the limit is reached often), the rest is what a client sent, copied to
 * a buffer of its exact size.  Beyond "no crash", it checks what the
 * daemon relies on:
 *   - the verdict is one of the enum's, "more" only below the limit;
 *   - a whole request has 1..DEMAND_TARGETS_MAX targets, each one word
 *     of printable ASCII, NUL-terminated within its slot, and uses every
 *     byte given;
 *   - fed byte by byte, the first verdict other than "more" is the one the
 *     whole input gets, but for a whole request followed by more bytes,
 *     which the whole refuses (one request a connection);
 *   - a refusal says why in one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demand_req.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static struct demand_req req;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max, len, k, used;
	enum demand_parse whole, first = DEMAND_MORE;
	char *buf, why[256];

	if (size < 1)
		return 0;
	max = data[0] == 0 ? DEMAND_REQ_MAX : data[0];
	len = size - 1;
	if (len > max)
		len = max;
	buf = malloc(len > 0 ? len : 1);
	memcpy(buf, data + 1, len);
	whole = demand_req_parse(buf, len, max, &req, why, sizeof(why));
	CHECK(whole >= DEMAND_MORE && whole <= DEMAND_TOO_LARGE);
	if (whole == DEMAND_MORE)
		CHECK(len < max);
	if (whole == DEMAND_BAD || whole == DEMAND_TOO_LARGE)
		CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
	if (whole == DEMAND_OK) {
		CHECK(req.n >= 1 && req.n <= DEMAND_TARGETS_MAX && req.used == len);
		for (size_t i = 0; i < req.n; i++) {
			size_t n = strnlen(req.target[i], sizeof(req.target[i]));

			CHECK(n > 0 && n < sizeof(req.target[i]));
			for (size_t j = 0; j < n; j++)
				CHECK(req.target[i][j] > 0x20 && req.target[i][j] < 0x7f);
			(void)demand_spec_has_port(req.target[i]);
		}
	}
	/* as the server sees it: growing prefixes, the first verdict kept */
	for (k = 0; k <= len; k++) {
		enum demand_parse r = demand_req_parse(buf, k, max, &req, why, sizeof(why));

		if (r != DEMAND_MORE) {
			first = r;
			used = req.used;
			break;
		}
	}
	if (first == DEMAND_OK && whole == DEMAND_BAD)
		CHECK(used == k && k < len);
	else
		CHECK(first == whole);
	free(buf);
	return 0;
}
