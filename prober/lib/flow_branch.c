/*
 * flow_branch.c -- a branch's side as text and back (flow_branch.h).
 */
#include <string.h>

#include "flow_branch.h"

const struct flow_branch *
flow_branch_of(const struct path_result *res, int i)
{
	const struct flow_branch *b;

	if (res->flow_branch == NULL || i < 0 || i >= res->nscales || i >= RESULT_MAX_SCALES)
		return NULL;
	b = &res->flow_branch[i];
	if (b->hop_index < 1 || b->nproblem < 1 || b->nclean < 1 ||
	    b->nproblem > FLOW_BRANCH_ADDRS || b->nclean > FLOW_BRANCH_ADDRS)
		return NULL;
	return b;
}

void
flow_branch_side_format(const struct addr *a, int n, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (int k = 0; k < n && k < FLOW_BRANCH_ADDRS; k++) {
		char one[ADDR_STRLEN];
		size_t l;

		addr_format(&a[k], one, sizeof(one));
		l = strlen(one);
		if (used + (k > 0) + l + 1 > len)
			return;
		if (k > 0)
			buf[used++] = ',';
		memcpy(buf + used, one, l + 1);
		used += l;
	}
}

int
flow_branch_side_parse(const char *text, struct addr *a)
{
	int n = 0;

	if (text == NULL || *text == '\0')
		return -1;
	for (const char *p = text;;) {
		const char *comma = strchr(p, ',');
		size_t l = comma != NULL ? (size_t)(comma - p) : strlen(p);
		char one[ADDR_STRLEN];

		if (n == FLOW_BRANCH_ADDRS || l == 0 || l >= sizeof(one))
			return -1;
		memcpy(one, p, l);
		one[l] = '\0';
		if (addr_parse(one, &a[n]) != 0)
			return -1;
		n++;
		if (comma == NULL)
			return n;
		p = comma + 1;
	}
}

int
flow_branch_from_cells(int hop, const char *problem, const char *clean, struct flow_branch *b)
{
	memset(b, 0, sizeof(*b));
	if (hop < 1 || hop > RESULT_MAX_HOPS ||
	    (b->nproblem = flow_branch_side_parse(problem, b->problem)) < 1 ||
	    (b->nclean = flow_branch_side_parse(clean, b->clean)) < 1) {
		memset(b, 0, sizeof(*b));
		return -1;
	}
	b->hop_index = hop;
	return 0;
}

void
flow_branch_json(struct json *j, const struct flow_branch *b)
{
	char buf[ADDR_STRLEN];

	if (b == NULL || b->hop_index <= 0)
		return;
	json_key(j, "branch");
	json_object_begin(j);
	json_kint(j, "hop_index", b->hop_index);
	json_key(j, "problem");
	json_array_begin(j);
	for (int k = 0; k < b->nproblem && k < FLOW_BRANCH_ADDRS; k++)
		json_string(j, addr_format(&b->problem[k], buf, sizeof(buf)));
	json_array_end(j);
	json_key(j, "clean");
	json_array_begin(j);
	for (int k = 0; k < b->nclean && k < FLOW_BRANCH_ADDRS; k++)
		json_string(j, addr_format(&b->clean[k], buf, sizeof(buf)));
	json_array_end(j);
	json_object_end(j);
}
