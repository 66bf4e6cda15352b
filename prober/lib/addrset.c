/*
 * addrset.c -- the compact (address, port) set of addrset.h: one sorted
 * array a family, an index of bucket starts, binary search in a bucket
 * (16 entries at a million pairs), and a stage merged into the array from
 * its end.
 */
#define _GNU_SOURCE		/* mremap */
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "addrset.h"
#include "log.h"

#define M48 ((1ull << 48) - 1)

void
addrset_init(struct addrset *s, const uint8_t key[SIPHASH_KEY_LEN])
{
	memset(s, 0, sizeof(*s));
	memcpy(s->key, key, SIPHASH_KEY_LEN);
	s->mix = siphash24(key, "addrset", 7) & M48;
}

void
addrset_free(struct addrset *s)
{
	for (int f = 0; f < 2; f++) {
		if (s->f[f].v != NULL)
			munmap(s->f[f].v, s->f[f].cap * (f == 0 ? sizeof(uint32_t) :
			    sizeof(uint64_t)));
		free(s->f[f].start);
		free(s->f[f].stage);
	}
	memset(s, 0, sizeof(*s));
}

/* A bijection of the 48 bits (each step undoes: an xor, a multiplication
 * by an odd number mod 2^48, an xor-shift of half the width or more), so
 * two pairs never share a value; mixed, so one /16 fills every bucket. */
static uint64_t
addrset_v4(const struct addrset *s, const struct addr *a, uint16_t port)
{
	uint64_t x = ((uint64_t)a->bytes[0] << 40 | (uint64_t)a->bytes[1] << 32 |
	    (uint64_t)a->bytes[2] << 24 | (uint64_t)a->bytes[3] << 16 | port) ^ s->mix;

	x = (x * 0x9e3779b97f4bull) & M48;
	x ^= x >> 24;
	x = (x * 0xbf58476d1ce5ull) & M48;
	x ^= x >> 24;
	return x;
}

static uint64_t
addrset_v6(const struct addrset *s, const struct addr *a, uint16_t port)
{
	uint8_t buf[18];

	memcpy(buf, a->bytes, 16);
	buf[16] = (uint8_t)(port >> 8);
	buf[17] = (uint8_t)port;
	return siphash24(s->key, buf, sizeof(buf));
}

/* The family (0 IPv4, 1 IPv6) and whole value of (a, port). */
static int
addrset_value(const struct addrset *s, const struct addr *a, uint16_t port, uint64_t *x)
{
	if (a->family == ADDR_V4) {
		*x = addrset_v4(s, a, port);
		return 0;
	}
	*x = addrset_v6(s, a, port);
	return 1;
}

/* A value's bucket, and what the array keeps of it (IPv4: the low 32
 * bits, the bucket being the rest). */
static size_t
fam_bucket(int f, uint64_t x)
{
	return (size_t)(f == 0 ? x >> 32 : x >> 48);
}

static uint64_t
fam_at(const struct addrset_fam *fm, int f, size_t i)
{
	return f == 0 ? ((const uint32_t *)fm->v)[i] : ((const uint64_t *)fm->v)[i];
}

static void
fam_set(struct addrset_fam *fm, int f, size_t i, uint64_t x)
{
	if (f == 0)
		((uint32_t *)fm->v)[i] = (uint32_t)x;
	else
		((uint64_t *)fm->v)[i] = x;
}

static uint64_t
fam_kept(int f, uint64_t x)
{
	return f == 0 ? (uint32_t)x : x;
}

/* Whether the array holds x. */
static bool
fam_has_merged(const struct addrset_fam *fm, int f, uint64_t x)
{
	size_t b, lo, hi;
	uint64_t k = fam_kept(f, x);

	if (fm->start == NULL)
		return false;
	b = fam_bucket(f, x);
	lo = fm->start[b];
	hi = fm->start[b + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fam_at(fm, f, mid) < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fm->start[b + 1] && fam_at(fm, f, lo) == k;
}

/* The first index of the (sorted) stage not below x. */
static size_t
stage_lower(const struct addrset_fam *fm, uint64_t x)
{
	size_t lo = 0, hi = fm->nstage;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fm->stage[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool
stage_has(const struct addrset_fam *fm, uint64_t x)
{
	size_t i;

	if (fm->unsorted) {
		for (i = 0; i < fm->nstage; i++)
			if (fm->stage[i] == x)
				return true;
		return false;
	}
	i = stage_lower(fm, x);
	return i < fm->nstage && fm->stage[i] == x;
}

static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The stage sorted, each value once. */
static void
stage_sort(struct addrset_fam *fm)
{
	size_t k = 0;

	if (!fm->unsorted)
		return;
	qsort(fm->stage, fm->nstage, sizeof(*fm->stage), cmp_u64);
	for (size_t i = 0; i < fm->nstage; i++)
		if (k == 0 || fm->stage[i] != fm->stage[k - 1])
			fm->stage[k++] = fm->stage[i];
	fm->nstage = k;
	fm->unsorted = false;
}

/* The family's index and stage, when its first pair comes. */
static void
fam_start(struct addrset *s, struct addrset_fam *fm)
{
	if (fm->start != NULL)
		return;
	fm->start = xcalloc(ADDRSET_BUCKETS + 1, sizeof(*fm->start));
	fm->stage = xcalloc(ADDRSET_STAGE, sizeof(*fm->stage));
	s->bytes += (ADDRSET_BUCKETS + 1) * sizeof(*fm->start) +
	    ADDRSET_STAGE * sizeof(*fm->stage);
}

/* Room for at least need values.  The array is a mapping of its own, grown
 * by mremap: its pages move, never copied, so it is never held twice, and
 * no freed block of it stays in the heap; a page takes memory once
 * written, so the half again reserved costs nothing until used (and is
 * not counted in s->bytes). */
static void
fam_grow(struct addrset_fam *fm, size_t w, size_t need)
{
	size_t page = 4096, cap = fm->cap + fm->cap / 2, bytes;
	void *v;

	if (cap < need)
		cap = need;
	if (cap > (SIZE_MAX - page) / w)
		fatalx("addrset: %zu pairs are too many", cap);
	bytes = (cap * w + page - 1) / page * page;
	cap = bytes / w;
	v = fm->v == NULL ? mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) :
	    mremap(fm->v, fm->cap * w, bytes, MREMAP_MAYMOVE);
	if (v == MAP_FAILED)
		fatal("addrset: %zu bytes", bytes);
	fm->v = v;
	fm->cap = cap;
}

/* The stage into the array: what the array has already is dropped, then
 * both are merged bucket by bucket from the end, each value moving up by
 * the stage's values below it, so nothing is overwritten before it moves. */
static void
fam_merge(struct addrset *s, int f)
{
	struct addrset_fam *fm = &s->f[f];
	size_t k = 0, w = f == 0 ? sizeof(uint32_t) : sizeof(uint64_t);
	size_t i, j, dst;

	stage_sort(fm);
	for (i = 0; i < fm->nstage; i++)
		if (!fam_has_merged(fm, f, fm->stage[i]))
			fm->stage[k++] = fm->stage[i];
	s->n += k - fm->staged_added;
	fm->nstage = fm->staged_added = 0;
	if (k == 0)
		return;
	if (fm->n + k > UINT32_MAX)
		fatalx("addrset: more than %u pairs", UINT32_MAX);
	if (fm->n + k > fm->cap)
		fam_grow(fm, w, fm->n + k);
	i = fm->n;
	j = k;
	dst = fm->n + k;
	fm->start[ADDRSET_BUCKETS] = (uint32_t)dst;
	for (size_t b = ADDRSET_BUCKETS; b-- > 0;) {
		size_t lo = fm->start[b];

		while (i > lo || (j > 0 && fam_bucket(f, fm->stage[j - 1]) == b)) {
			if (j > 0 && fam_bucket(f, fm->stage[j - 1]) == b &&
			    (i == lo || fam_kept(f, fm->stage[j - 1]) > fam_at(fm, f, i - 1)))
				fam_set(fm, f, --dst, fm->stage[--j]);
			else {
				i--;
				fam_set(fm, f, --dst, fam_at(fm, f, i));
			}
		}
		fm->start[b] = (uint32_t)dst;
	}
	fm->n += k;
	s->bytes += k * w;
}

void
addrset_flush(struct addrset *s)
{
	for (int f = 0; f < 2; f++)
		if (s->f[f].nstage > 0)
			fam_merge(s, f);
}

void
addrset_put(struct addrset *s, const struct addr *a, uint16_t port)
{
	uint64_t x;
	int f = addrset_value(s, a, port, &x);
	struct addrset_fam *fm = &s->f[f];

	fam_start(s, fm);
	if (fm->nstage == ADDRSET_STAGE)
		fam_merge(s, f);
	fm->stage[fm->nstage++] = x;
	fm->unsorted = true;
}

bool
addrset_add(struct addrset *s, const struct addr *a, uint16_t port)
{
	uint64_t x;
	int f = addrset_value(s, a, port, &x);
	struct addrset_fam *fm = &s->f[f];
	size_t i;

	fam_start(s, fm);
	stage_sort(fm);
	if (fam_has_merged(fm, f, x) || stage_has(fm, x))
		return false;
	if (fm->nstage >= ADDRSET_ADD_STAGE)
		fam_merge(s, f);
	i = stage_lower(fm, x);
	memmove(fm->stage + i + 1, fm->stage + i, (fm->nstage - i) * sizeof(*fm->stage));
	fm->stage[i] = x;
	fm->nstage++;
	fm->staged_added++;
	s->n++;
	return true;
}

bool
addrset_has(const struct addrset *s, const struct addr *a, uint16_t port)
{
	uint64_t x;
	int f = addrset_value(s, a, port, &x);

	return fam_has_merged(&s->f[f], f, x) || stage_has(&s->f[f], x);
}
