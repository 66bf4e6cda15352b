/*
 * wire_testutil.c -- helpers of the test_wire_* programs (see the header).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"
#include "wire_csum.h"
#include "wire_testutil.h"

unsigned long	wt_cases;
unsigned long	wt_truncations;

size_t
wt_copy(uint8_t *buf, const char *name)
{
	const struct sample	*s = sample_get(name);

	assert_non_null(s);
	assert_true(s->len <= WT_BUF);
	memset(buf, 0, WT_BUF);
	memcpy(buf, s->bytes, s->len);
	return s->len;
}

void
wt_fix_ip4_csum(uint8_t *ip)
{
	size_t	ihl = (ip[0] & 0x0f) * 4u;

	wire_put16(ip + 10, 0);
	wire_put16(ip + 10, wire_csum(ip, ihl));
}

void
wt_set_ip_len(uint8_t *ip, size_t len)
{
	if (ip[0] >> 4 == 4) {
		wire_put16(ip + 2, (uint16_t)len);
		wt_fix_ip4_csum(ip);
	} else
		wire_put16(ip + 4, (uint16_t)(len - 40));
}

int
wt_report(void **state)
{
	(void)state;
	print_message("# parser cases: %lu, truncations tried: %lu\n",
	    wt_cases, wt_truncations);
	return 0;
}
