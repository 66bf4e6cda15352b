/*
 * test_siphash.c -- SipHash-2-4 against the reference vectors of the SipHash
 * paper's implementation (key 00 01 .. 0f, message 00 01 .. len-1 for len
 * 0..63; the output's 8 bytes read little-endian).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "siphash.h"

static const uint64_t vectors[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL,	/*  0,  1 */
	0x0d6c8009d9a94f5aULL, 0x85676696d7fb7e2dULL,	/*  2,  3 */
	0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,	/*  4,  5 */
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL,	/*  6,  7 */
	0x93f5f5799a932462ULL, 0x9e0082df0ba9e4b0ULL,	/*  8,  9 */
	0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,	/* 10, 11 */
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL,	/* 12, 13 */
	0xf723ca908e7af2eeULL, 0xa129ca6149be45e5ULL,	/* 14, 15 */
	0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,	/* 16, 17 */
	0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL,	/* 18, 19 */
	0xbed65cf21aa2ee98ULL, 0xd0f2cbb02e3b67c7ULL,	/* 20, 21 */
	0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,	/* 22, 23 */
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL,	/* 24, 25 */
	0x17d835b85bbb15f3ULL, 0x2f2e6163076bcfadULL,	/* 26, 27 */
	0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,	/* 28, 29 */
	0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL,	/* 30, 31 */
	0x7127512f72f27cceULL, 0xa7f32346f95978e3ULL,	/* 32, 33 */
	0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,	/* 34, 35 */
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL,	/* 36, 37 */
	0xcadcd4e59ef40c4dULL, 0x9abfd8766a33735cULL,	/* 38, 39 */
	0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,	/* 40, 41 */
	0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL,	/* 42, 43 */
	0xf935451de4f21df2ULL, 0xa9538f0419755787ULL,	/* 44, 45 */
	0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,	/* 46, 47 */
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL,	/* 48, 49 */
	0xee64435a9752fe72ULL, 0xa192d576b245165aULL,	/* 50, 51 */
	0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,	/* 52, 53 */
	0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL,	/* 54, 55 */
	0xb78dbfaf3a8d83bdULL, 0xea1ad565322a1a0bULL,	/* 56, 57 */
	0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,	/* 58, 59 */
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL,	/* 60, 61 */
	0xe51b38608ef25f57ULL, 0x958a324ceb064572ULL,	/* 62, 63 */
};

static void
key_and_msg(uint8_t key[16], uint8_t msg[64])
{
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
}

/* Every length 0..63: covers each tail length 0..7 with 0..7 full words. */
static void
test_reference_vectors(void **state)
{
	uint8_t key[16], msg[64];

	(void)state;
	key_and_msg(key, msg);
	for (size_t len = 0; len < 64; len++) {
		uint64_t h = siphash24(key, msg, len);

		if (h != vectors[len])
			fail_msg("len %zu: got %016llx, want %016llx", len,
			    (unsigned long long)h, (unsigned long long)vectors[len]);
	}
}

/* The paper's worked example (Appendix A): 15 bytes, a129ca6149be45e5. */
static void
test_paper_example(void **state)
{
	uint8_t key[16], msg[64];

	(void)state;
	key_and_msg(key, msg);
	assert_int_equal(siphash24(key, msg, 15), 0xa129ca6149be45e5ULL);
}

/* Reading words by bytes: a message at an odd address hashes the same. */
static void
test_unaligned_input(void **state)
{
	uint8_t key[16], msg[64], shifted[65];

	(void)state;
	key_and_msg(key, msg);
	for (size_t len = 0; len < 64; len++) {
		memcpy(shifted + 1, msg, len);
		assert_int_equal(siphash24(key, shifted + 1, len), vectors[len]);
	}
}

/* Every bit of the key and of the message matters. */
static void
test_single_bit_changes(void **state)
{
	uint8_t key[16], msg[64];

	(void)state;
	key_and_msg(key, msg);
	for (int bit = 0; bit < 128; bit++) {
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(siphash24(key, msg, 16), vectors[16]);
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (int bit = 0; bit < 8 * 16; bit++) {
		msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(siphash24(key, msg, 16), vectors[16]);
		msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(siphash24(key, msg, 16), vectors[16]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_vectors),
		cmocka_unit_test(test_paper_example),
		cmocka_unit_test(test_unaligned_input),
		cmocka_unit_test(test_single_bit_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
